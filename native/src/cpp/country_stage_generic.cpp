// The country-stage kernels for any x86-64 (or other) CPU.
#define EVENSTAR_NS generic
#include "country_stage_impl.h"
