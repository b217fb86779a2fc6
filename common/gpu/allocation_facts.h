// What an allocation-properties query says of a handle (hipMemGetAllocationPropertiesFromHandle,
// cuMemGetAllocationPropertiesFromHandle), in the enums' own numbers: HIP and CUDA give them the same values (type 1
// pinned; location 1 device, 2 host; handle type 1 POSIX fd), so one text compares an owner's handle with its import.
// The handle types are kept but not part of the placement: CUDA's import reports none (0) where the owner asked
// for a POSIX fd (our run on an H200, 2026-12-01), so they are not something an import carries over.
// Vendor-neutral: no runtime header.
#pragma once

#include <string>

namespace vmr_gpu {

struct AllocationFacts {
  int type = 0;
  int location_type = 0;
  int location_id = 0;
  int handle_types = 0;
  // Where the memory is and what kind: what an import must report as its owner does.
  std::string placement() const {
    return "type " + std::to_string(type) + ", location type " + std::to_string(location_type) + " id " +
           std::to_string(location_id);
  }
};

}  // namespace vmr_gpu
