// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * irn_kunit.ko: runs every irn KUnit suite when loaded.  It needs
 * rdma_irn.ko built for a kernel with CONFIG_KUNIT, which exports the
 * internals under test in the EXPORTED_FOR_KUNIT_TESTING namespace.
 */

#include <linux/module.h>

#include "irn_kunit.h"

kunit_test_suites(&irn_psn_suite, &irn_hdr_suite, &irn_icrc_suite,
		  &irn_flow_suite, &irn_dcqcn_suite, &irn_delay_suite,
		  &irn_sb_suite, &irn_rxwin_suite, &irn_srq_suite,
		  &irn_mr_suite, &irn_path_suite, &irn_task_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for irn");
MODULE_LICENSE("Dual BSD/GPL");
