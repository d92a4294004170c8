// The execution graph in a cache file's body (analysis/kernel_analysis_file.h writes the
// header and the rest of the analysis around it): hosts, qualifier strings, then each
// worker's struct-of-arrays timeline written as its arrays (timestamps, edges, in-links),
// then each CPU's timeline. Reading copies the arrays back in whole, so that a load runs at
// the speed of memory rather than of the kernel model.
//
// Invariants checked on reading, so that a forged file cannot make a later walk index out
// of bounds: every worker has at least one vertex and as many edges as timestamps, its
// timestamps never decrease, every state is a known one and every qualifier an interned
// string; in-links are sorted by their vertex (one per vertex) and name an existing vertex
// of an existing worker; CPU timelines hold workers of the graph (or the idle or unknown
// task) at non-decreasing times. Each failure names the field and the byte.
#pragma once

#include "base/binary_file.h"
#include "graph/execution_graph.h"

namespace causeway::graph {

void WriteExecutionGraph(const ExecutionGraph& g, BinaryFileWriter* out);
// Reads into `g`, a graph just constructed. False with in->error() set on failure.
bool ReadExecutionGraph(BinaryReader* in, ExecutionGraph* g);

}  // namespace causeway::graph
