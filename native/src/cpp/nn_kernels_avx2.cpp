// The network kernels built for AVX2 and FMA (CMakeLists.txt sets the flags on
// this file only); nn_kernels_bindings.cpp calls them only on CPUs that have both.
#define EVENSTAR_NS avx2
#include "nn_country_stage.h"
#include "nn_card_stage.h"
#include "nn_infer.h"
