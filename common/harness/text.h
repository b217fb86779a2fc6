// Small strict text helpers shared by the command line, the records and the expected-verdict table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vmr {

std::vector<std::string_view> split(std::string_view s, char sep);
std::string_view trim(std::string_view s);
// Whole-string parses: no sign tricks, no trailing junk, no overflow.
bool parse_int64(std::string_view s, int64_t* out);
bool parse_int(std::string_view s, int min, int max, int* out);
bool parse_double(std::string_view s, double* out);  // finite values only
std::string format_double(double v);                 // shortest text that reads back exactly
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// Text from outside (a command line, the environment, a rank's output) made safe to echo on one line: control
// bytes become \xNN (so a newline cannot forge a VERDICT line, nor an ESC drive the terminal) and text longer than
// max_bytes is cut, saying how much was left out.
std::string printable(std::string_view s, size_t max_bytes = 200);
// A strict decimal number of seconds: digits, optionally a point and digits ("2", "0.5"); no sign, exponent or hex.
bool parse_seconds(std::string_view s, double* out);
// The function a call expression names, as error texts quote it: "api.cuMemMap" -> "cuMemMap".
std::string_view call_name(std::string_view expr);

}  // namespace vmr
