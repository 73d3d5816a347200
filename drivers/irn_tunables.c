// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Defaults for new devices, as module parameters:
 *
 *   modprobe rdma_irn mode=gbn cap=64 cc=dcqcn
 *   echo irn > /sys/module/rdma_irn/parameters/mode
 *
 * Documentation/ops-guide.rst explains each knob.
 */

#include <linux/moduleparam.h>
#include <linux/string.h>

#include "irn_dev.h"
#include "irn_path.h"
#include "irn_tunables.h"

static const char * const mode_names[] = {
	[IRN_MODE_AUTO]	= "auto",
	[IRN_MODE_GBN]	= "gbn",
	[IRN_MODE_IRN]	= "irn",
};

static u32 default_mode = IRN_MODE_AUTO;
static u32 default_cap = 128;
static u32 default_rto_low_us = 1000;
static u32 default_rto_high_us = 5000;
static bool default_sack_single;
static u32 default_cc = IRN_CC_NONE;
static u32 default_paths = 1;

/**
 * irn_mode_parse() - mode from its name
 * @s: "auto", "gbn" or "irn", optionally followed by a newline
 *
 * Context: any.
 * Return: an enum irn_mode, or -EINVAL.
 */
int irn_mode_parse(const char *s)
{
	return sysfs_match_string(mode_names, s);
}

/**
 * irn_mode_name() - name of a mode
 * @mode: enum irn_mode
 *
 * Context: any.
 * Return: a static string.
 */
const char *irn_mode_name(u32 mode)
{
	return mode < ARRAY_SIZE(mode_names) ? mode_names[mode] : "?";
}

static int mode_set(const char *val, const struct kernel_param *kp)
{
	int mode = irn_mode_parse(val);

	if (mode < 0)
		return mode;
	WRITE_ONCE(default_mode, mode);
	return 0;
}

static int mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", irn_mode_name(READ_ONCE(default_mode)));
}

static const struct kernel_param_ops mode_ops = {
	.set = mode_set,
	.get = mode_get,
};

static int cc_set(const char *val, const struct kernel_param *kp)
{
	int cc = irn_cc_parse(val);

	if (cc < 0)
		return cc;
	WRITE_ONCE(default_cc, cc);
	return 0;
}

static int cc_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", irn_cc_name(READ_ONCE(default_cc)));
}

static const struct kernel_param_ops cc_ops = {
	.set = cc_set,
	.get = cc_get,
};

module_param_cb(mode, &mode_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "transport of new devices: auto (default), gbn or irn");
module_param_named(cap, default_cap, uint, 0644);
MODULE_PARM_DESC(cap, "packets in flight per QP (BDP-FC), 4..512; default 128");
module_param_named(rto_low_us, default_rto_low_us, uint, 0644);
MODULE_PARM_DESC(rto_low_us, "floor of IRN's short timeout in us; default 1000");
module_param_named(rto_high_us, default_rto_high_us, uint, 0644);
MODULE_PARM_DESC(rto_high_us, "floor of IRN's long timeout in us; default 5000");
module_param_named(sack_single, default_sack_single, bool, 0644);
MODULE_PARM_DESC(sack_single, "SACKs name one PSN, as IRN's NACK (for comparison); default N: the whole bitmap");
module_param_cb(cc, &cc_ops, NULL, 0644);
MODULE_PARM_DESC(cc, "congestion control of new RC QPs: none (default), dcqcn or delay");
module_param_named(paths, default_paths, uint, 0644);
MODULE_PARM_DESC(paths, "UDP source ports an IRN QP sprays its requests over, 1..8; default 1 (no spraying), 4 suggested");

/**
 * irn_tunables_default() - a new device's knobs, from the module parameters
 * @tun: filled in
 *
 * Context: any.
 */
void irn_tunables_default(struct irn_tunables *tun)
{
	tun->mode = READ_ONCE(default_mode);
	tun->cap = clamp_t(u32, READ_ONCE(default_cap), IRN_CAP_MIN,
			   IRN_CAP_MAX);
	tun->rto_low_us = READ_ONCE(default_rto_low_us);
	tun->rto_high_us = READ_ONCE(default_rto_high_us);
	tun->sack_single = READ_ONCE(default_sack_single);
	irn_cc_config_default(&tun->cc, READ_ONCE(default_cc));
	tun->cnp_interval_us = IRN_CNP_INTERVAL_US;
	tun->cnp_dscp = IRN_CNP_DSCP;
	tun->paths = clamp_t(u32, READ_ONCE(default_paths), 1, IRN_PATH_MAX);
}
