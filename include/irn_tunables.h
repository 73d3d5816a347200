/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * IRN knobs: module parameters give each new device its defaults; debugfs
 * changes them per device for QPs created afterwards.
 */
#ifndef _IRN_TUNABLES_H
#define _IRN_TUNABLES_H

#include <linux/types.h>

struct irn_tunables;

void irn_tunables_default(struct irn_tunables *tun);
int irn_mode_parse(const char *s);
const char *irn_mode_name(u32 mode);

#endif /* _IRN_TUNABLES_H */
