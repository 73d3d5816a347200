// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows over fast-registration MRs: what a remote key reaches
 * while a kernel consumer invalidates and registers the MR again.  The
 * device is a bare key table; the RDMA core's part (the PD and the
 * objects' device and PD pointers) is set by hand.
 */

#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "irn_dev.h"
#include "irn_kunit.h"
#include "irn_mr.h"

#define MR_IOVA		0x100000ULL
#define MW_QPN		5

/* @key with its 8-bit tag moved on: what a consumer does for a new use. */
static u32 next_key(u32 key)
{
	return (key & ~0xffU) | ((key + 1) & 0xff);
}

struct mr_bed {
	struct irn_dev	*dev;
	struct ib_pd	*pd;
	struct irn_mr	*mr;
	struct irn_mw	*mw;
	unsigned long	page[2];
};

/*
 * Map page @i of the bed as a consumer does (ib_map_mr_sg(), then the
 * iova of its choice), and register the MR with a new key.
 */
static int bed_register(struct kunit *test, struct mr_bed *b, int i)
{
	struct irn_mr *mr = b->mr;
	struct scatterlist sg;

	sg_init_table(&sg, 1);
	sg_set_page(&sg, virt_to_page((void *)b->page[i]), PAGE_SIZE, 0);
	/* irn has no DMA device: DMA addresses are virtual ones. */
	sg_dma_address(&sg) = b->page[i];
	sg_dma_len(&sg) = PAGE_SIZE;
	mr->ib_mr.page_size = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, irn_mr_map_sg(&mr->ib_mr, &sg, 1, NULL), 1);
	mr->ib_mr.iova = MR_IOVA;
	return irn_mr_fast_register(mr, next_key(mr->ib_mr.lkey),
				    IB_ACCESS_LOCAL_WRITE |
				    IB_ACCESS_REMOTE_READ | IB_ACCESS_MW_BIND);
}

static void bed_init(struct kunit *test, struct mr_bed *b)
{
	struct ib_mr *ibmr;
	int i;

	b->dev = kunit_kzalloc(test, sizeof(*b->dev), GFP_KERNEL);
	b->pd = kunit_kzalloc(test, sizeof(*b->pd), GFP_KERNEL);
	b->mw = kunit_kzalloc(test, sizeof(*b->mw), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, b->dev && b->pd && b->mw);
	xa_init_flags(&b->dev->mr_keys, XA_FLAGS_ALLOC1);
	b->dev->attr.max_fast_reg_page_list_len = 4;
	b->pd->device = &b->dev->ib_dev;
	for (i = 0; i < 2; i++) {
		b->page[i] = get_zeroed_page(GFP_KERNEL);
		KUNIT_ASSERT_NE(test, b->page[i], 0UL);
	}

	ibmr = irn_mr_alloc(b->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ibmr));
	ibmr->device = &b->dev->ib_dev;
	ibmr->pd = b->pd;
	b->mr = to_irn_mr(ibmr);

	b->mw->ib_mw.device = &b->dev->ib_dev;
	b->mw->ib_mw.pd = b->pd;
	b->mw->ib_mw.type = IB_MW_TYPE_2;
	KUNIT_ASSERT_EQ(test, irn_mw_alloc(&b->mw->ib_mw, NULL), 0);
}

static void bed_free(struct mr_bed *b)
{
	irn_mw_dealloc(&b->mw->ib_mw);
	irn_mr_invalidate(b->dev, b->mr->ib_mr.lkey, b->pd);
	irn_mr_dereg(&b->mr->ib_mr, NULL);
	xa_destroy(&b->dev->mr_keys);
	free_page(b->page[0]);
	free_page(b->page[1]);
}

/* Bind the type 2 window over the whole MR with a new key; return it. */
static u32 bed_bind(struct kunit *test, struct mr_bed *b)
{
	struct rxe_send_wr wr = {};

	wr.wr.mw.addr = MR_IOVA;
	wr.wr.mw.length = PAGE_SIZE;
	wr.wr.mw.mr_lkey = b->mr->ib_mr.lkey;
	wr.wr.mw.mw_rkey = b->mw->ib_mw.rkey;
	wr.wr.mw.rkey = next_key(b->mw->ib_mw.rkey);
	wr.wr.mw.access = IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, irn_mw_bind(b->dev, b->pd, MW_QPN, &wr),
			IB_WC_SUCCESS);
	return wr.wr.mw.rkey;
}

/* The memory the window's key reaches at MR_IOVA, or 0 if none. */
static unsigned long reach(struct mr_bed *b, u32 rkey)
{
	struct irn_mr *mr;
	unsigned long addr;

	mr = irn_mr_lookup_remote(b->dev, rkey, b->pd, MW_QPN,
				  IB_ACCESS_REMOTE_READ, MR_IOVA, 64);
	if (!mr)
		return 0;
	addr = (unsigned long)irn_mr_atomic_addr(mr, MR_IOVA);
	irn_mr_put(mr);
	return addr;
}

/*
 * A window bound to a fast-registration MR holds it: the MR can neither
 * be invalidated nor registered again over other pages while the window
 * grants access, and pages mapped meanwhile wait for the next
 * registration, so a remote key never reaches pages its owner did not
 * bind it to.  Once the window is invalidated, the MR is free to go.
 */
static void irn_test_mr_window_holds_mr(struct kunit *test)
{
	struct mr_bed b;
	u32 rkey;

	bed_init(test, &b);
	KUNIT_ASSERT_EQ(test, bed_register(test, &b, 0), 0);
	/* Registered already: invalidate first. */
	KUNIT_EXPECT_EQ(test, bed_register(test, &b, 1), -EINVAL);
	rkey = bed_bind(test, &b);
	KUNIT_EXPECT_EQ(test, reach(&b, rkey), b.page[0]);

	/* The MR under the window: neither invalidated nor registered. */
	irn_mr_invalidate(b.dev, b.mr->ib_mr.lkey, b.pd);
	bed_register(test, &b, 1);
	KUNIT_EXPECT_NE_MSG(test, reach(&b, rkey), b.page[1],
			    "the window's key reaches pages registered after it was bound");
	KUNIT_EXPECT_EQ(test, reach(&b, rkey), b.page[0]);

	/* The window goes; then the MR. */
	KUNIT_EXPECT_EQ(test, irn_mr_invalidate(b.dev, rkey, b.pd), 0);
	KUNIT_EXPECT_EQ(test, reach(&b, rkey), 0UL);
	KUNIT_EXPECT_EQ(test, irn_mr_invalidate(b.dev, b.mr->ib_mr.lkey, b.pd),
			0);
	KUNIT_EXPECT_EQ(test, bed_register(test, &b, 1), 0);
	KUNIT_EXPECT_EQ(test, reach(&b, rkey), 0UL);
	bed_free(&b);
}

static struct kunit_case irn_mr_cases[] = {
	KUNIT_CASE(irn_test_mr_window_holds_mr),
	{}
};

struct kunit_suite irn_mr_suite = {
	.name = "irn_mr",
	.test_cases = irn_mr_cases,
};
