// XXH64 for the compiler side: the one implementation lives in runtime-min (the loader verifies
// with it, and bundles carry runtime-min alone), so writer and loader can never disagree.
#pragma once

#include "../../runtime-min/src/xxh64.h"
