// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Instantiates the tracepoints declared in include/irn_trace.h.
 */

#define CREATE_TRACE_POINTS
#include "irn_trace.h"
