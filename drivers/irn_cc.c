// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Congestion control algorithms: names, and a device's defaults.
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "irn_cc.h"

static const char * const cc_names[] = {
	[IRN_CC_NONE]	= "none",
	[IRN_CC_DCQCN]	= "dcqcn",
	[IRN_CC_DELAY]	= "delay",
};

/**
 * irn_cc_config_default() - congestion control with default parameters
 * @cfg: filled in
 * @algo: enum irn_cc
 *
 * Context: any.
 */
void irn_cc_config_default(struct irn_cc_config *cfg, u32 algo)
{
	cfg->algo = algo;
	irn_dcqcn_params_default(&cfg->dcqcn);
	irn_delay_params_default(&cfg->delay);
}
EXPORT_SYMBOL_IF_KUNIT(irn_cc_config_default);

/**
 * irn_cc_parse() - congestion control algorithm from its name
 * @s: "none", "dcqcn" or "delay", optionally followed by a newline
 *
 * Context: any.
 * Return: an enum irn_cc, or -EINVAL.
 */
int irn_cc_parse(const char *s)
{
	return sysfs_match_string(cc_names, s);
}
EXPORT_SYMBOL_IF_KUNIT(irn_cc_parse);

/**
 * irn_cc_name() - name of a congestion control algorithm
 * @algo: enum irn_cc
 *
 * Context: any.
 * Return: a static string.
 */
const char *irn_cc_name(u32 algo)
{
	return algo < ARRAY_SIZE(cc_names) ? cc_names[algo] : "?";
}
