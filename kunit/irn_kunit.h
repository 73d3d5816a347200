/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * KUnit suites of irn, collected into one test module by irn_kunit_main.c.
 */
#ifndef _IRN_KUNIT_H
#define _IRN_KUNIT_H

#include <kunit/test.h>

extern struct kunit_suite irn_psn_suite;
extern struct kunit_suite irn_hdr_suite;
extern struct kunit_suite irn_icrc_suite;
extern struct kunit_suite irn_flow_suite;
extern struct kunit_suite irn_dcqcn_suite;
extern struct kunit_suite irn_delay_suite;
extern struct kunit_suite irn_sb_suite;
extern struct kunit_suite irn_rxwin_suite;
extern struct kunit_suite irn_srq_suite;
extern struct kunit_suite irn_mr_suite;
extern struct kunit_suite irn_path_suite;
extern struct kunit_suite irn_task_suite;

#endif /* _IRN_KUNIT_H */
