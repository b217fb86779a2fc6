// The order a launch takes its cases in (launcher.h select_cases): the binary's, but the cases expected not to pass
// last, so that the failure ending a rank life leaves no case to fresh ranks (one more GPU runtime start each).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/expected.h"
#include "harness/launcher.h"

using namespace vmr;

namespace {

const char kTable[] =
    "| binary | case | condition | verdict | labels | evidence |\n| --- | --- | --- | --- | --- | --- |\n"
    "| repro_x | read | * | PASS | x | r |\n"
    "| repro_x | hole | * | FAIL ~illegal address | x | r |\n"
    "| repro_x | sometimes | driver<2 | FAIL | x | r |\n"
    "| repro_x | sometimes | * | PASS | x | r |\n"
    "| repro_x | either | * | PASS/FAIL | x | r |\n"
    "| repro_x | atomics | * | PASS | x | r |\n";

std::vector<std::string> order(const std::vector<std::string>& named) {
  std::vector<ExpectedRow> table;
  const Status parsed = parse_expected_table(kTable, &table);
  EXPECT_TRUE(parsed.ok()) << parsed.detail;
  ReproBinary bin{"repro_x", "host", nullptr, {}, nullptr};
  for (const char* name : {"read", "hole", "sometimes", "either", "atomics"}) bin.cases.push_back({name, "", nullptr});
  Options o;
  o.cases = named;
  std::vector<std::string> names;
  for (const CaseDef* c : select_cases(table, bin, o)) names.push_back(c->name);
  return names;
}

}  // namespace

TEST(CaseOrder, CasesExpectedNotToPassRunLastTheRestInTheBinarysOrder) {
  // "hole" allows no PASS: last. "sometimes" (FAIL only under a condition) and "either" (PASS/FAIL) may pass: they
  // keep their place.
  EXPECT_EQ(order({}), (std::vector<std::string>{"read", "sometimes", "either", "atomics", "hole"}));
  EXPECT_EQ(order({"hole", "read"}), (std::vector<std::string>{"read", "hole"}));
  EXPECT_EQ(order({"atomics", "hole", "either"}), (std::vector<std::string>{"either", "atomics", "hole"}));
}
