// fleet.html: the fleet report as a page a cluster admin opens in a browser (tools/html.h: one self-contained file).
#pragma once

#include <string>

#include "fleet.h"

namespace vmr_tools {

// A node x case heatmap, each cell coloured by the node's verdict of the case with Cell::text() on hover (its title),
// the nodes that differ in some case first, then those that did not answer or have a problem, then the rest (each in
// the report's order); beside it each difference with the facts that set its nodes apart, the facts that differ with
// no verdict change, the nodes that did not answer and the problems. Rendered here as a plain table: no script.
std::string fleet_html(const Report& r);

}  // namespace vmr_tools
