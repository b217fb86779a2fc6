// The GPUs one run chose (--devices): a pair "0-1" (rank 0 on GPU 0 exports, rank 1 on GPU 1 imports), a same-GPU
// pair "0-0", or a mesh "0-1-2-3" (one rank per GPU). One type with one parse and its few spellings, so that the
// record's file name, the --devices argument, a report's arrow and summary.json's indices cannot drift apart.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/status.h"

namespace vmr_tools {

struct Pair {
  std::vector<int> gpus;  // in rank order; empty: the run did not choose its GPUs (a host case)

  bool empty() const { return gpus.empty(); }
  bool is_pair() const { return gpus.size() == 2; }  // exporter and importer (a mesh has more)
  bool operator==(const Pair& o) const { return gpus == o.gpus; }
  bool operator<(const Pair& o) const { return gpus < o.gpus; }
  bool same_gpu() const { return is_pair() && gpus[0] == gpus[1]; }  // the diagonal: two processes on one GPU
};

// Reads a pair as any tool or person writes it: "0-1" (a record's and summary's), "0,1" (--devices), "0:1", "0->1"
// and "GPU 0 -> GPU 1"; a mesh as "0-1-2". "" is the empty Pair. Usage status naming the text where it is none of
// these (a negative or non-numeric index, one GPU alone, a separator without an index).
vmr::Status parse_pair(std::string_view text, Pair* out);

// The Pair of `text` where parse_pair reads it, else the empty Pair (a host row's "" and text no run wrote).
Pair pair_of(std::string_view text);

// "0-1", "0-1-2-3", "" where empty: the record's file name part, summary.json's and the reports' key.
std::string pair_key(const Pair& p);
// "0,1": the --devices argument that reruns the case on the same GPUs; "" where empty.
std::string pair_devices(const Pair& p);
// "0:1": how --pairs takes a pair and the triage's notes and errors about --pairs name it.
std::string pair_listed(const Pair& p);
// "0->1", "mesh 0-1-2-3", "" where empty: the direction a reader sees (the health line, the fleet's cells).
std::string pair_arrow(const Pair& p);

}  // namespace vmr_tools
