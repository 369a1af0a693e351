// The network kernels for any x86-64 (or other) CPU.
#define EVENSTAR_NS generic
#include "nn_country_stage.h"
#include "nn_card_stage.h"
#include "nn_infer.h"
