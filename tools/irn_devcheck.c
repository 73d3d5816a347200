// SPDX-License-Identifier: GPL-2.0
/*
 * irn_devcheck - exercise the basic uverbs objects of one RDMA device.
 *
 * Opens a device by name and walks through: query device, query port 1,
 * read the GID table, PD, CQ (plain and extended), poll, a CQ bound to a
 * completion channel with ibv_req_notify_cq(), ibv_resize_cq(), the
 * multicast attach and detach rules of UD QPs, then destroys everything
 * in reverse order.  Prints "ok STEP" or
 * "FAIL STEP: errno (strerror)" per step and exits 1 if any step failed
 * that was not named with --allow-fail.
 */

#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define CQ_DEPTH	16
#define CQ_RESIZED	64
#define MAX_ALLOW	32
#define EVENT_WAIT_MS	5000

struct devcheck {
	const char *dev_name;
	int verbose;
	const char *allow[MAX_ALLOW];
	int n_allow;
	int failed;
	int allowed_failed;

	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cq_ex;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq_chan;
};

static int step_allowed(struct devcheck *dc, const char *step)
{
	int i;

	for (i = 0; i < dc->n_allow; i++)
		if (!strcmp(dc->allow[i], step) || !strcmp(dc->allow[i], "all"))
			return 1;
	return 0;
}

static void step_ok(const char *step)
{
	printf("ok %s\n", step);
}

/* Report a failed step; err is a positive errno value. */
static void step_fail(struct devcheck *dc, const char *step, int err)
{
	if (step_allowed(dc, step)) {
		printf("XFAIL %s: errno %d (%s) [allowed]\n", step, err,
		       strerror(err));
		dc->allowed_failed++;
		return;
	}
	printf("FAIL %s: errno %d (%s)\n", step, err, strerror(err));
	dc->failed++;
}

/* Report a failed step that has no errno, with a reason. */
static void step_fail_msg(struct devcheck *dc, const char *step,
			  const char *fmt, ...)
{
	va_list ap;
	int allowed = step_allowed(dc, step);

	printf("%s %s: ", allowed ? "XFAIL" : "FAIL", step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("%s\n", allowed ? " [allowed]" : "");
	if (allowed)
		dc->allowed_failed++;
	else
		dc->failed++;
}

static void step_skip(const char *step, const char *why)
{
	printf("skip %s: %s\n", step, why);
}

/* Errors from verbs that return NULL come back in errno, maybe as 0. */
static int errno_or_eio(void)
{
	return errno ? errno : EIO;
}

static const char *port_state_str(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_DOWN:
		return "DOWN";
	case IBV_PORT_INIT:
		return "INIT";
	case IBV_PORT_ARMED:
		return "ARMED";
	case IBV_PORT_ACTIVE:
		return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	default:
		return "NOP/unknown";
	}
}

static int mtu_bytes(enum ibv_mtu mtu)
{
	return (mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096) ?
		128 << mtu : -1;
}

static const char *link_layer_str(unsigned int ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "unspecified";
	}
}

static const char *gid_type_str(enum ibv_gid_type t)
{
	switch (t) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	default:
		return "unknown";
	}
}

static int open_device(struct devcheck *dc)
{
	int i, n;

	dc->list = ibv_get_device_list(&n);
	if (!dc->list) {
		step_fail(dc, "get_device_list", errno_or_eio());
		return -1;
	}
	step_ok("get_device_list");
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(dc->list[i]), dc->dev_name))
			continue;
		dc->ctx = ibv_open_device(dc->list[i]);
		if (!dc->ctx) {
			step_fail(dc, "open_device", errno_or_eio());
			return -1;
		}
		step_ok("open_device");
		return 0;
	}
	step_fail_msg(dc, "open_device", "no device named %s among %d",
		      dc->dev_name, n);
	return -1;
}

static void query_device(struct devcheck *dc)
{
	int ret = ibv_query_device(dc->ctx, &dc->dattr);

	if (ret) {
		step_fail(dc, "query_device", ret);
		return;
	}
	if (dc->dattr.phys_port_cnt < 1) {
		step_fail_msg(dc, "query_device", "phys_port_cnt is %u",
			      dc->dattr.phys_port_cnt);
		return;
	}
	step_ok("query_device");
	if (dc->verbose)
		printf("  fw_ver %s node_guid 0x%016llx vendor_id 0x%x ports %u\n"
		       "  max_qp %d max_cq %d max_cqe %d max_pd %d\n",
		       dc->dattr.fw_ver,
		       (unsigned long long)be64toh(dc->dattr.node_guid),
		       dc->dattr.vendor_id, dc->dattr.phys_port_cnt,
		       dc->dattr.max_qp, dc->dattr.max_cq, dc->dattr.max_cqe,
		       dc->dattr.max_pd);
}

static int query_port(struct devcheck *dc)
{
	int ret = ibv_query_port(dc->ctx, 1, &dc->pattr);

	if (ret) {
		step_fail(dc, "query_port", ret);
		return -1;
	}
	step_ok("query_port");
	printf("  port 1: state %s (%d) active_mtu %d max_mtu %d link_layer %s gid_tbl_len %d\n",
	       port_state_str(dc->pattr.state), dc->pattr.state,
	       mtu_bytes(dc->pattr.active_mtu), mtu_bytes(dc->pattr.max_mtu),
	       link_layer_str(dc->pattr.link_layer), dc->pattr.gid_tbl_len);
	return 0;
}

static void print_gid(const struct ibv_gid_entry *e)
{
	const unsigned char *r = e->gid.raw;
	int i;

	printf("  gid[%u] %-7s ", e->gid_index, gid_type_str(e->gid_type));
	for (i = 0; i < 16; i += 2)
		printf("%02x%02x%s", r[i], r[i + 1], i < 14 ? ":" : "");
	printf(" ndev_ifindex %u\n", e->ndev_ifindex);
}

/* The GID table must hold at least one RoCE v2 entry. */
static void query_gids(struct devcheck *dc)
{
	size_t max = dc->pattr.gid_tbl_len;
	struct ibv_gid_entry *tbl;
	ssize_t n, i;
	int v2 = 0;

	if (max == 0) {
		step_fail_msg(dc, "gid_table", "port reports gid_tbl_len 0");
		return;
	}
	tbl = calloc(max, sizeof(*tbl));
	if (!tbl) {
		step_fail(dc, "gid_table", ENOMEM);
		return;
	}
	n = ibv_query_gid_table(dc->ctx, tbl, max, 0);
	if (n < 0) {
		step_fail(dc, "gid_table", (int)-n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (tbl[i].gid_type == IBV_GID_TYPE_ROCE_V2)
			v2++;
		if (dc->verbose)
			print_gid(&tbl[i]);
	}
	if (!v2) {
		step_fail_msg(dc, "gid_table", "%zd entries, none RoCE v2", n);
		goto out;
	}
	step_ok("gid_table");
	printf("  %zd GID entries, %d RoCE v2\n", n, v2);
out:
	free(tbl);
}

static void create_objects(struct devcheck *dc)
{
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = CQ_DEPTH,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr poll_attr = {};
	struct ibv_wc wc;
	int ret;

	dc->pd = ibv_alloc_pd(dc->ctx);
	if (dc->pd)
		step_ok("alloc_pd");
	else
		step_fail(dc, "alloc_pd", errno_or_eio());

	dc->cq = ibv_create_cq(dc->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (dc->cq) {
		step_ok("create_cq");
		ret = ibv_poll_cq(dc->cq, 1, &wc);
		if (ret == 0)
			step_ok("poll_cq");
		else if (ret > 0)
			step_fail_msg(dc, "poll_cq",
				      "new CQ returned %d completion(s), status %d",
				      ret, wc.status);
		else
			step_fail_msg(dc, "poll_cq", "returned %d", ret);
	} else {
		step_fail(dc, "create_cq", errno_or_eio());
		step_skip("poll_cq", "no CQ");
	}

	dc->cq_ex = ibv_create_cq_ex(dc->ctx, &cq_attr);
	if (dc->cq_ex) {
		step_ok("create_cq_ex");
		ret = ibv_start_poll(dc->cq_ex, &poll_attr);
		if (ret == ENOENT) {
			step_ok("poll_cq_ex");
		} else if (ret == 0) {
			ibv_end_poll(dc->cq_ex);
			step_fail_msg(dc, "poll_cq_ex",
				      "new CQ returned a completion");
		} else {
			step_fail(dc, "poll_cq_ex", ret);
		}
	} else {
		step_fail(dc, "create_cq_ex", errno_or_eio());
		step_skip("poll_cq_ex", "no extended CQ");
	}
}

static void notify_and_resize(struct devcheck *dc)
{
	int ret;

	dc->chan = ibv_create_comp_channel(dc->ctx);
	if (!dc->chan) {
		step_fail(dc, "create_comp_channel", errno_or_eio());
		step_skip("req_notify_cq", "no completion channel");
	} else {
		step_ok("create_comp_channel");
		dc->cq_chan = ibv_create_cq(dc->ctx, CQ_DEPTH, NULL, dc->chan,
					    0);
		if (!dc->cq_chan) {
			step_fail(dc, "create_cq_channel", errno_or_eio());
			step_skip("req_notify_cq", "no CQ on the channel");
		} else {
			step_ok("create_cq_channel");
			ret = ibv_req_notify_cq(dc->cq_chan, 0);
			if (ret)
				step_fail(dc, "req_notify_cq", ret);
			else
				step_ok("req_notify_cq");
			ret = ibv_req_notify_cq(dc->cq_chan, 1);
			if (ret)
				step_fail(dc, "req_notify_cq_solicited", ret);
			else
				step_ok("req_notify_cq_solicited");
		}
	}

	if (!dc->cq) {
		step_skip("resize_cq", "no CQ");
		return;
	}
	ret = ibv_resize_cq(dc->cq, CQ_RESIZED);
	if (ret)
		step_fail(dc, "resize_cq", ret);
	else if (dc->cq->cqe < CQ_RESIZED)
		step_fail_msg(dc, "resize_cq", "asked for %d entries, got %d",
			      CQ_RESIZED, dc->cq->cqe);
	else
		step_ok("resize_cq");
}

/*
 * Wait for the async event @want on @qp, skipping device-wide ones (port
 * and GID changes may come at any time).  Returns 0, or -1 after a step
 * failure was reported.
 */
static int wait_qp_event(struct devcheck *dc, const char *step,
			 struct ibv_qp *qp, enum ibv_event_type want)
{
	struct pollfd pfd = { .fd = dc->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	enum ibv_event_type got;
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, EVENT_WAIT_MS);
		if (ret == 0) {
			step_fail_msg(dc, step, "no %s event within %d ms",
				      ibv_event_type_str(want), EVENT_WAIT_MS);
			return -1;
		}
		if (ret < 0 || ibv_get_async_event(dc->ctx, &ev)) {
			step_fail(dc, step, errno_or_eio());
			return -1;
		}
		got = ev.event_type;
		ret = got == want && ev.element.qp == qp;
		ibv_ack_async_event(&ev);
		if (ret)
			return 0;
		if (got != IBV_EVENT_PORT_ACTIVE && got != IBV_EVENT_PORT_ERR &&
		    got != IBV_EVENT_GID_CHANGE && got != IBV_EVENT_LID_CHANGE &&
		    got != IBV_EVENT_PKEY_CHANGE) {
			step_fail_msg(dc, step, "got %s instead of %s",
				      ibv_event_type_str(got),
				      ibv_event_type_str(want));
			return -1;
		}
	}
}

/*
 * An RC QP on an SRQ that enters the error state takes no more of the
 * SRQ's WQEs and must say so with Last WQE Reached (kernel consumers such
 * as the NVMe-oF target wait for it before draining).
 */
static void srq_last_wqe(struct devcheck *dc)
{
	struct ibv_srq_init_attr srq_attr = {
		.attr = { .max_wr = CQ_DEPTH, .max_sge = 1 },
	};
	struct ibv_qp_init_attr qp_init = {
		.send_cq = dc->cq,
		.recv_cq = dc->cq,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
	};
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	int ret;

	if (!dc->pd || !dc->cq) {
		step_skip("create_srq", "no PD or CQ");
		return;
	}
	srq = ibv_create_srq(dc->pd, &srq_attr);
	if (!srq) {
		step_fail(dc, "create_srq", errno_or_eio());
		return;
	}
	step_ok("create_srq");
	qp_init.srq = srq;
	qp = ibv_create_qp(dc->pd, &qp_init);
	if (!qp) {
		step_fail(dc, "create_qp_srq", errno_or_eio());
		goto destroy_srq;
	}
	step_ok("create_qp_srq");
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (!ret) {
		attr.qp_state = IBV_QPS_ERR;
		ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	}
	if (ret) {
		step_fail(dc, "modify_qp_err", ret);
		goto destroy_qp;
	}
	step_ok("modify_qp_err");
	if (!wait_qp_event(dc, "last_wqe_reached", qp,
			   IBV_EVENT_QP_LAST_WQE_REACHED))
		step_ok("last_wqe_reached");
destroy_qp:
	ret = ibv_destroy_qp(qp);
	if (ret)
		step_fail(dc, "destroy_qp_srq", ret);
	else
		step_ok("destroy_qp_srq");
destroy_srq:
	ret = ibv_destroy_srq(srq);
	if (ret)
		step_fail(dc, "destroy_srq", ret);
	else
		step_ok("destroy_srq");
}

static struct ibv_qp *create_qp(struct devcheck *dc, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = dc->cq,
		.recv_cq = dc->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};

	return ibv_create_qp(dc->pd, &attr);
}

/* ibv_attach_mcast() and ibv_detach_mcast(): 0 or a positive errno */
static int mcast_ret(int ret)
{
	return ret > 0 ? ret : ret ? errno_or_eio() : 0;
}

static void mcast_expect(struct devcheck *dc, const char *step, int ret,
			 int want)
{
	ret = mcast_ret(ret);
	if (ret == want)
		step_ok(step);
	else
		step_fail_msg(dc, step, "returned %d (%s), expected %d (%s)",
			      ret, strerror(ret), want, strerror(want));
}

/*
 * UD multicast rules: a UD QP attaches to a multicast GID (again: no
 * change) and detaches once; a unicast GID, an RC QP and one QP more
 * than max_mcast_qp_attach are refused, and so is destroying a QP that
 * is still attached.
 */
static void mcast_rules(struct devcheck *dc)
{
	union ibv_gid group = { .raw = { [10] = 0xff, [11] = 0xff,
					 239, 77, 0, 9 } };
	union ibv_gid unicast = { .raw = { [10] = 0xff, [11] = 0xff,
					   10, 77, 0, 9 } };
	int n = dc->dattr.max_mcast_qp_attach, i, ret = 0;
	struct ibv_qp *ud[64] = {}, *rc;

	if (!dc->pd || !dc->cq || !n || n >= 64) {
		step_skip("mcast", "no PD or CQ, or max_mcast_qp_attach 0 or >= 64");
		return;
	}
	for (i = 0; i <= n; i++) {
		ud[i] = create_qp(dc, IBV_QPT_UD);
		if (!ud[i]) {
			step_fail(dc, "mcast_create_ud_qp", errno_or_eio());
			goto out_destroy;
		}
	}
	mcast_expect(dc, "mcast_attach", ibv_attach_mcast(ud[0], &group, 0), 0);
	mcast_expect(dc, "mcast_attach_again",
		     ibv_attach_mcast(ud[0], &group, 0), 0);
	mcast_expect(dc, "mcast_attach_unicast",
		     ibv_attach_mcast(ud[1], &unicast, 0), EINVAL);
	for (i = 1; i < n && !ret; i++)
		ret = mcast_ret(ibv_attach_mcast(ud[i], &group, 0));
	if (ret)
		step_fail(dc, "mcast_attach_up_to_limit", ret);
	else
		step_ok("mcast_attach_up_to_limit");
	mcast_expect(dc, "mcast_attach_over_limit",
		     ibv_attach_mcast(ud[n], &group, 0), ENOMEM);
	mcast_expect(dc, "mcast_detach", ibv_detach_mcast(ud[0], &group, 0), 0);
	mcast_expect(dc, "mcast_detach_again",
		     ibv_detach_mcast(ud[0], &group, 0), EINVAL);
	mcast_expect(dc, "mcast_attach_after_detach",
		     ibv_attach_mcast(ud[n], &group, 0), 0);
	rc = create_qp(dc, IBV_QPT_RC);
	if (rc) {
		mcast_expect(dc, "mcast_attach_rc",
			     ibv_attach_mcast(rc, &group, 0), EINVAL);
		ibv_destroy_qp(rc);
	} else {
		step_fail(dc, "mcast_create_rc_qp", errno_or_eio());
	}
	/* uverbs keeps an attached QP from being destroyed */
	ret = ibv_destroy_qp(ud[1]);
	if (!ret)
		ud[1] = NULL;
	mcast_expect(dc, "mcast_destroy_attached", ret, EBUSY);
	for (i = 1, ret = 0; i <= n && !ret; i++)
		if (ud[i])
			ret = mcast_ret(ibv_detach_mcast(ud[i], &group, 0));
	if (ret)
		step_fail(dc, "mcast_detach_all", ret);
	else
		step_ok("mcast_detach_all");
out_destroy:
	for (i = 0; i <= n; i++)
		if (ud[i] && ibv_destroy_qp(ud[i]))
			step_fail(dc, "mcast_destroy_qp", errno_or_eio());
}

static void destroy_all(struct devcheck *dc)
{
	int ret;

	if (dc->cq_chan) {
		ret = ibv_destroy_cq(dc->cq_chan);
		if (ret)
			step_fail(dc, "destroy_cq_channel", ret);
		else
			step_ok("destroy_cq_channel");
	}
	if (dc->chan) {
		ret = ibv_destroy_comp_channel(dc->chan);
		if (ret)
			step_fail(dc, "destroy_comp_channel", ret);
		else
			step_ok("destroy_comp_channel");
	}
	if (dc->cq_ex) {
		ret = ibv_destroy_cq(ibv_cq_ex_to_cq(dc->cq_ex));
		if (ret)
			step_fail(dc, "destroy_cq_ex", ret);
		else
			step_ok("destroy_cq_ex");
	}
	if (dc->cq) {
		ret = ibv_destroy_cq(dc->cq);
		if (ret)
			step_fail(dc, "destroy_cq", ret);
		else
			step_ok("destroy_cq");
	}
	if (dc->pd) {
		ret = ibv_dealloc_pd(dc->pd);
		if (ret)
			step_fail(dc, "dealloc_pd", ret);
		else
			step_ok("dealloc_pd");
	}
	if (dc->ctx) {
		ret = ibv_close_device(dc->ctx);
		if (ret)
			step_fail(dc, "close_device", ret);
		else
			step_ok("close_device");
	}
	if (dc->list)
		ibv_free_device_list(dc->list);
}

static void help(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s -d DEV [-v] [--allow-fail STEP[,STEP...]]...\n"
		"  -d, --device DEV      RDMA device name (e.g. irn0)\n"
		"  -v, --verbose         print device attributes and GIDs\n"
		"  -a, --allow-fail LIST steps whose failure is reported as\n"
		"                        XFAIL and does not fail the run\n"
		"                        (\"all\" allows every step)\n"
		"steps: get_device_list open_device query_device query_port\n"
		"       gid_table alloc_pd create_cq poll_cq create_cq_ex\n"
		"       poll_cq_ex create_comp_channel create_cq_channel\n"
		"       req_notify_cq req_notify_cq_solicited resize_cq\n"
		"       create_srq create_qp_srq modify_qp_err last_wqe_reached\n"
		"       destroy_qp_srq destroy_srq\n"
		"       destroy_cq_channel destroy_comp_channel destroy_cq_ex\n"
		"       destroy_cq dealloc_pd close_device\n", prog);
}

static int add_allowed(struct devcheck *dc, char *list)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (dc->n_allow == MAX_ALLOW)
			return -1;
		dc->allow[dc->n_allow++] = tok;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "allow-fail", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct devcheck dc = {};
	int c;

	while ((c = getopt_long(argc, argv, "d:va:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dc.dev_name = optarg;
			break;
		case 'v':
			dc.verbose = 1;
			break;
		case 'a':
			if (add_allowed(&dc, optarg)) {
				fprintf(stderr, "too many --allow-fail steps\n");
				return 2;
			}
			break;
		case 'h':
			help(stdout, argv[0]);
			return 0;
		default:
			help(stderr, argv[0]);
			return 2;
		}
	}
	if (!dc.dev_name || optind != argc) {
		help(stderr, argv[0]);
		return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (open_device(&dc) == 0) {
		query_device(&dc);
		if (query_port(&dc) == 0)
			query_gids(&dc);
		else
			step_skip("gid_table", "port query failed");
		create_objects(&dc);
		notify_and_resize(&dc);
		srq_last_wqe(&dc);
		mcast_rules(&dc);
	}
	destroy_all(&dc);

	printf("irn_devcheck %s: %d failed, %d allowed failure(s)\n",
	       dc.dev_name, dc.failed, dc.allowed_failed);
	return dc.failed ? 1 : 0;
}
