// Package htmlreport is git burl monitor --html: the board, the timeline,
// the dependency graph, the throughput and which agent is worth its money
// (git burl stats --by agent's table), as one self-contained HTML page.
package htmlreport
