// How a bundle's weights.sgw is brought into memory (docs/runtime.md, "Blob loader").
#pragma once

namespace saguaro {

enum class WeightsLoad {
  kRead,  // read into private anonymous memory on transparent huge pages, read-only afterwards (the default;
          // decode streams it faster than a mapping of the file)
  kMap,   // mmap the file (shares the page cache)
};

}  // namespace saguaro
