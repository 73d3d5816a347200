/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Kernel API differences between the supported kernels: Debian 12's 6.1
 * and Debian's 6.12 line.  Every LINUX_VERSION_CODE test of the module
 * lives here; the rest of the code calls the irn_ helpers below.
 */
#ifndef _IRN_COMPAT_H
#define _IRN_COMPAT_H

#include <linux/version.h>
#include <rdma/ib_verbs.h>

/* 6.12 moved the unaligned access helpers from asm/ to linux/. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.10 dropped __assign_str()'s source argument: the string is the one
 * given to __string() in TP_STRUCT__entry().  Use in TP_fast_assign().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define irn_assign_str(dst, src)	__assign_str(dst)
#else
#define irn_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * ATOMIC WRITE (IBTA 1.5): 6.2 gave the kernel names for its work request,
 * work completion and device capability.  The work request and completion
 * numbers are user ABI (ib_user_verbs.h: IB_UVERBS_WR_ATOMIC_WRITE,
 * IB_UVERBS_WC_ATOMIC_WRITE), so an older kernel still sees them in a user
 * ring and reports them in a user CQ; it has no capability bit to set.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define IRN_WR_ATOMIC_WRITE	IB_WR_ATOMIC_WRITE
#define IRN_WC_ATOMIC_WRITE	IB_WC_ATOMIC_WRITE
#define IRN_DEVICE_ATOMIC_WRITE	IB_DEVICE_ATOMIC_WRITE
#else
#define IRN_WR_ATOMIC_WRITE	15
#define IRN_WC_ATOMIC_WRITE	((enum ib_wc_opcode)9)
#define IRN_DEVICE_ATOMIC_WRITE	0
#endif

/*
 * 6.11 passes ib_device_ops.create_cq the uverbs attribute bundle (NULL for
 * a kernel consumer) where it passed the provider's udata.  The driver's
 * create_cq takes a struct irn_create_cq_arg, which names whichever of the
 * two the kernel passes, and reads the udata with irn_create_cq_udata().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#include <rdma/uverbs_ioctl.h>

#define irn_create_cq_arg	uverbs_attr_bundle

/**
 * irn_create_cq_udata() - the provider udata handed to create_cq
 * @attrs: the attribute bundle create_cq was called with, or NULL
 *
 * Return: the udata of a user CQ, NULL for a kernel consumer's.
 */
static inline struct ib_udata *
irn_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define irn_create_cq_arg	ib_udata

static inline struct ib_udata *irn_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

#endif /* _IRN_COMPAT_H */
