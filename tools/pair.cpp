#include "pair.h"

#include <cctype>

#include "harness/text.h"

namespace vmr_tools {

using namespace vmr;

Status parse_pair(std::string_view text, Pair* out) {
  out->gpus.clear();
  // The spellings differ in their words, spaces and separator only: "GPU 0 -> GPU 1" is "0-1" once the words and
  // spaces are gone and the arrow is a dash.
  std::string plain;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, 3) == "GPU") {
      i += 2;
    } else if (text.substr(i, 2) == "->") {
      plain += '-';
      ++i;
    } else if (text[i] != ' ') {
      plain += text[i];
    }
  }
  if (text.empty()) return Status::pass();
  const size_t sep_at = plain.find_first_not_of("0123456789");
  const char sep = sep_at == std::string::npos ? '-' : plain[sep_at];
  const Status bad = {Verdict::Usage, "'" + std::string(text) +
                                          "' is not a GPU pair (two or more GPU indices: 0-1, 0,1, 0:1, 0->1 or "
                                          "GPU 0 -> GPU 1)"};
  if (sep != '-' && sep != ',' && sep != ':') return bad;
  for (auto part : split(plain, sep)) {
    int64_t index = 0;
    if (part.empty() || !std::isdigit(static_cast<unsigned char>(part[0])) || !parse_int64(part, &index) ||
        index > 1 << 20)
      return out->gpus.clear(), bad;
    out->gpus.push_back(int(index));
  }
  if (out->gpus.size() < 2) return out->gpus.clear(), bad;
  return Status::pass();
}

Pair pair_of(std::string_view text) {
  Pair p;
  return parse_pair(text, &p).ok() ? p : Pair{};
}

namespace {
std::string joined(const Pair& p, const char* sep) {
  std::string out;
  for (size_t i = 0; i < p.gpus.size(); ++i) out += (i ? sep : "") + std::to_string(p.gpus[i]);
  return out;
}
}  // namespace

std::string pair_key(const Pair& p) { return joined(p, "-"); }

std::string pair_devices(const Pair& p) { return joined(p, ","); }

std::string pair_listed(const Pair& p) { return joined(p, ":"); }

std::string pair_arrow(const Pair& p) {
  if (p.is_pair()) return joined(p, "->");
  return p.empty() ? "" : "mesh " + pair_key(p);
}

}  // namespace vmr_tools
