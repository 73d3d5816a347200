/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * /sys/kernel/debug/irn/DEV/: per-device knobs and per-QP transport state.
 */
#ifndef _IRN_DEBUGFS_H
#define _IRN_DEBUGFS_H

struct irn_dev;

void irn_debugfs_init(void);
void irn_debugfs_exit(void);
void irn_debugfs_add_dev(struct irn_dev *dev);
void irn_debugfs_remove_dev(struct irn_dev *dev);

#endif /* _IRN_DEBUGFS_H */
