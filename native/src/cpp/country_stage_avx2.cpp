// The country-stage kernels built for AVX2 and FMA (CMakeLists.txt sets the flags on
// this file only); country_stage_bindings.cpp calls them only on CPUs that have both.
#define EVENSTAR_NS avx2
#include "country_stage_impl.h"
