// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_uverbs_test - user-space check of the vroce MR path through the raw
 * uverbs write() ABI (no rdma-core): GET_CONTEXT, QUERY_DEVICE, ALLOC_PD,
 * REG_MR on an unaligned 3-page+123-byte buffer, then the emulated device
 * reads the MR back through its translation engine (debugfs mr_read) and
 * the bytes are compared. Out-of-range, wrong-key and dead-key reads must
 * fail. Two threads then share one mr_read file, one writing requests and
 * one reading results, to check the file's buffer is swapped safely (the
 * kernel log is checked for KASAN reports by the caller). Then user CQs
 * and RC QPs: their driver data checked, two QPs connected to each other,
 * SEND, RDMA WRITE and RDMA READ through POST_SEND/POST_RECV/POLL_CQ into
 * and out of the MRs, inline data copied from the process (too much
 * refused, an unreadable address EFAULT), too many SGEs refused. DEREG_MR and
 * DEALLOC_PD close the run.
 *
 * Build: gcc -O2 -pthread -Wall -Wextra -Werror [-static] -o <binary> <this file>
 * Run as root: vroce_uverbs_test [/dev/infiniband/uverbsN]
 * With VROCE_UVERBS_HOLD set, that shell command runs while the MR lives.
 * Output: KTAP, a result line per check (no plan: how many depends on how
 * far the run gets). Exit: 0 all checks passed, 1 a check failed, 2 no
 * usable device.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../../c/uapi/vroce-abi.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DEV_DIR		"/dev/infiniband"
#define SYS_VERBS	"/sys/class/infiniband_verbs"
#define SYS_IB		"/sys/class/infiniband"
/*
 * debugfs: the driver's <ibdev>/fail_nth, the HCA's <platform device>/
 * (mr_read, reg_frmr, fault knobs), the demo module's <ibdev>/ (kmr,
 * loopback).
 */
#define DBG_DRV		"/sys/kernel/debug/vroce"
#define DBG_HCA		"/sys/kernel/debug/vroce_hca"
#define DBG_DEMO	"/sys/kernel/debug/vroce_demo"
#define BUF_OFFSET	100

/* Legacy write() ABI sizes the kernel checks (in_words/out_words * 4). */
static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8, "cmd_hdr");
static_assert(sizeof(struct ib_uverbs_get_context) == 8, "get_context");
static_assert(sizeof(struct ib_uverbs_get_context_resp) == 8, "ctx resp");
static_assert(sizeof(struct ib_uverbs_alloc_pd) == 8, "alloc_pd");
static_assert(sizeof(struct ib_uverbs_alloc_pd_resp) == 4, "pd resp");
static_assert(sizeof(struct ib_uverbs_reg_mr) == 40, "reg_mr");
static_assert(sizeof(struct ib_uverbs_reg_mr_resp) == 12, "mr resp");
static_assert(sizeof(struct ib_uverbs_dereg_mr) == 4, "dereg_mr");
static_assert(sizeof(struct ib_uverbs_dealloc_pd) == 4, "dealloc_pd");

static unsigned int n_pass, n_fail;

/*
 * One KTAP result line (Documentation/dev-tools/ktap.rst); everything else
 * the program prints is a '#' diagnostic line. The number of checks
 * depends on how far the run gets, so there is no plan: the caller nests
 * this output under a name of its own (scripts/ktap.sh ktap_subtest).
 */
static void check(int ok, const char *what)
{
	const char *c;

	if (ok)
		n_pass++;
	else
		n_fail++;
	printf("%s %u ", ok ? "ok" : "not ok", n_pass + n_fail);
	/* One line, and no '#': KTAP reads what follows ' # ' as a directive. */
	for (c = what; *c; c++) {
		if (*c == '#')
			fputs("No.", stdout);
		else
			putchar(*c == '\n' ? ' ' : *c);
	}
	putchar('\n');
}

/*
 * Issue one legacy (non-extended) uverbs command. The header is followed
 * by @req, whose first u64 is the 'response' pointer for commands with a
 * response. in_words counts the header too, both in 4-byte units.
 * Returns 0 or a negative errno.
 */
static int uv_cmd(int fd, __u32 command, const void *req, size_t req_len,
		  size_t resp_len, const char *name)
{
	__u64 buf[64];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (__u16)((sizeof(hdr) + req_len) / 4),
		.out_words = (__u16)(resp_len / 4),
	};
	size_t len = sizeof(hdr) + req_len;
	ssize_t ret;

	if (len > sizeof(buf))
		return -E2BIG;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy((char *)buf + sizeof(hdr), req, req_len);
	ret = write(fd, buf, len);
	if (ret < 0) {
		int err = errno;

		printf("# uverbs: %s: write(cmd %u, in_words %u, out_words %u): %s\n",
		       name, command, hdr.in_words, hdr.out_words,
		       strerror(err));
		return -err;
	}
	if ((size_t)ret != len) {
		printf("# uverbs: %s: short write %zd of %zu\n", name, ret, len);
		return -EIO;
	}
	return 0;
}

/* Read a one-line sysfs attribute into @out without the newline. */
static int read_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(out, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static int ibdev_of(const char *uverbs, char *ibdev, size_t size)
{
	char path[512];

	snprintf(path, sizeof(path), SYS_VERBS "/%s/ibdev", uverbs);
	return read_line(path, ibdev, size);
}

/*
 * The HCA's debugfs directory for @ibdev: named after the platform device
 * the driver bound, the target of SYS_IB/<ibdev>/device.
 */
static int hca_dir_of(const char *ibdev, char *dir, size_t size)
{
	char path[512], target[512];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), SYS_IB "/%s/device", ibdev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(dir, size, DBG_HCA "/%s", base ? base + 1 : target);
	return 0;
}

/* Lowest-numbered uverbsN whose ibdev name starts with "vroce". */
static int find_vroce(char *dev, size_t dsize, char *ibdev, size_t isize)
{
	struct dirent *de;
	long best = -1;
	DIR *d;

	d = opendir(DEV_DIR);
	if (!d) {
		printf("# uverbs: opendir %s: %s\n", DEV_DIR, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char name[256], *end;
		long n;

		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		n = strtol(de->d_name + 6, &end, 10);
		if (end == de->d_name + 6 || *end || (best >= 0 && n >= best))
			continue;
		if (ibdev_of(de->d_name, name, sizeof(name)) ||
		    strncmp(name, "vroce", 5))
			continue;
		best = n;
		snprintf(dev, dsize, DEV_DIR "/uverbs%ld", n);
		snprintf(ibdev, isize, "%s", name);
	}
	closedir(d);
	return best >= 0 ? 0 : -1;
}

/*
 * Ask the device model to read @len bytes at @iova through key @key.
 * Returns 0 with the bytes in @out, or a negative errno; *@refused tells
 * whether the failure was the device refusing the request in write().
 */
static int device_read(const char *path, __u32 key, __u64 iova, size_t len,
		       unsigned char *out, int *refused)
{
	char line[96];
	size_t got = 0;
	ssize_t ret;
	int fd, n, err = 0;

	*refused = 0;
	fd = open(path, O_RDWR);
	if (fd < 0) {
		err = errno;
		printf("# uverbs: open %s: %s\n", path, strerror(err));
		return -err;
	}
	n = snprintf(line, sizeof(line), "0x%x 0x%llx %zu\n", key,
		     (unsigned long long)iova, len);
	ret = write(fd, line, (size_t)n);
	if (ret < 0) {
		err = errno;
		*refused = 1;
		printf("# uverbs: debugfs write \"0x%x 0x%llx %zu\": %s (errno %d)\n",
		       key, (unsigned long long)iova, len, strerror(err), err);
		goto out;
	}
	if (ret != n) {
		printf("# uverbs: debugfs: short write %zd of %d\n", ret, n);
		err = EIO;
		goto out;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		err = errno;
		printf("# uverbs: debugfs lseek: %s\n", strerror(err));
		goto out;
	}
	while (got < len) {
		ret = read(fd, out + got, len - got);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			printf("# uverbs: debugfs read: %s\n", strerror(err));
			goto out;
		}
		if (!ret)
			break;
		got += (size_t)ret;
	}
	if (got != len) {
		printf("# uverbs: debugfs: got %zu of %zu bytes\n", got, len);
		err = EIO;
	}
out:
	close(fd);
	return -err;
}

/* A read that must be refused; @ok_errs lists acceptable errnos (0-ended). */
static void expect_refused(const char *path, __u32 key, __u64 iova,
			   size_t len, unsigned char *scratch,
			   const int *ok_errs, const char *what)
{
	int refused, err = -device_read(path, key, iova, len, scratch, &refused);
	char msg[160];
	int ok = refused && !ok_errs;

	for (; refused && ok_errs && *ok_errs; ok_errs++)
		ok |= err == *ok_errs;
	snprintf(msg, sizeof(msg), "%s (got %s%s)", what,
		 err ? strerror(err) : "success",
		 err && !refused ? ", not from write()" : "");
	check(ok, msg);
}

/* Two threads on one open mr_read file: requests and reads interleave. */
struct race {
	int fd;
	__u32 key;
	__u64 iova;
	size_t len;
	unsigned int rounds;
	unsigned int errors;
	unsigned int bad;
	const unsigned char *want;
};

static void *race_writer(void *arg)
{
	struct race *r = arg;
	char line[96];
	unsigned int i;
	int n;

	for (i = 0; i < r->rounds; i++) {
		/* Every length is a prefix of the same bytes. */
		n = snprintf(line, sizeof(line), "0x%x 0x%llx %zu\n", r->key,
			     (unsigned long long)r->iova,
			     1 + (size_t)(i * 7919u) % r->len);
		if (pwrite(r->fd, line, (size_t)n, 0) != n)
			r->errors++;
	}
	return NULL;
}

static void *race_reader(void *arg)
{
	struct race *r = arg;
	unsigned char got[8192];
	unsigned int i;
	ssize_t ret;

	for (i = 0; i < r->rounds; i++) {
		ret = pread(r->fd, got, sizeof(got), 0);
		if (ret < 0 || (size_t)ret > r->len)
			r->errors++;
		else if (ret > 0 && memcmp(got, r->want, (size_t)ret))
			r->bad++;
	}
	return NULL;
}

static void debugfs_race(const char *path, __u32 key, __u64 iova, size_t len,
			 const unsigned char *want)
{
	struct race r = { .key = key, .iova = iova, .rounds = 3000,
			  .want = want, .len = len < 8192 ? len : 8192 };
	pthread_t w, rd;
	char msg[128];

	r.fd = open(path, O_RDWR);
	if (r.fd < 0) {
		check(0, "open mr_read for the two-thread run");
		return;
	}
	if (pthread_create(&w, NULL, race_writer, &r)) {
		check(0, "start the writer thread");
		close(r.fd);
		return;
	}
	if (!pthread_create(&rd, NULL, race_reader, &r))
		pthread_join(rd, NULL);
	else
		r.errors++;
	pthread_join(w, NULL);
	close(r.fd);
	snprintf(msg, sizeof(msg),
		 "two threads on one mr_read file: %u rounds, %u errors, %u wrong reads",
		 r.rounds, r.errors, r.bad);
	check(!r.errors && !r.bad, msg);
}

/* One bad REG_MR through raw uverbs: it must fail with @want. */
static void bad_reg_mr(int fd, __u32 pd_handle, __u64 start, __u64 length,
		       __u64 hca_va, __u32 access, __u64 drv, int want,
		       const char *what)
{
	struct {
		struct ib_uverbs_reg_mr c;
		__u64 drv;	/* driver data: vroce takes none */
	} req = {
		.c = { .start = start, .length = length, .hca_va = hca_va,
		       .pd_handle = pd_handle, .access_flags = access },
		.drv = drv,
	};
	struct ib_uverbs_reg_mr_resp resp = { 0 };
	char msg[200];
	int err;

	req.c.response = (uintptr_t)&resp;
	err = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &req,
		     drv ? sizeof(req) : sizeof(req.c), sizeof(resp), what);
	snprintf(msg, sizeof(msg), "REG_MR %s: %s (want %s)", what,
		 err ? strerror(-err) : "success", strerror(want));
	check(err == -want, msg);
	if (!err) {
		struct ib_uverbs_dereg_mr d = { .mr_handle = resp.mr_handle };

		uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &d, sizeof(d), 0,
		       "DEREG_MR");
	}
}

/* Write @line to a debugfs file: it must fail with @want. */
static void junk_write(const char *dir, const char *file, const char *line,
		       int want)
{
	char path[700], msg[800];
	ssize_t ret;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "open %s: %s", path, strerror(errno));
		check(0, msg);
		return;
	}
	ret = write(fd, line, strlen(line));
	err = ret < 0 ? errno : 0;
	close(fd);
	snprintf(msg, sizeof(msg), "debugfs %s refuses \"%.40s%s\": %s (want %s)",
		 file, line, strlen(line) > 40 ? "..." : "",
		 err ? strerror(err) : "accepted", strerror(want));
	check(err == want, msg);
}

/* Write @line to @path; return 0 or the errno. */
static int write_line(const char *path, const char *line)
{
	int fd = open(path, O_RDWR), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, line, strlen(line)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * Fail each fault injection point of a debugfs operation of the demo
 * module (file in @dir) in turn, through the driver's fail_nth file (in
 * @drv): -ENOMEM each time, until it succeeds; then undo it. kmemleak,
 * checked by scripts/uverbs.sh afterwards, sees what leaked.
 */
static void fault_each(const char *drv, const char *dir, const char *file,
		       const char *line, const char *undo)
{
	char nth[700], path[700], num[16], msg[200];
	int n, err, bad = 0;

	snprintf(nth, sizeof(nth), "%s/fail_nth", drv);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	for (n = 1; n < 200; n++) {
		snprintf(num, sizeof(num), "%d", n);
		if (write_line(nth, num)) {
			check(0, "write fail_nth");
			return;
		}
		err = write_line(path, line);
		if (!err)
			break;
		if (err == EEXIST) {
			/* In use by whoever runs us (make demo's kmr). */
			write_line(nth, "0");
			printf("# uverbs: note: %s in use, its faults not injected\n",
			       file);
			return;
		}
		if (err != ENOMEM && !bad++)
			printf("# uverbs: %s \"%s\", point %d: %s\n", file, line,
			       n, strerror(err));
	}
	write_line(nth, "0");
	if (undo)
		write_line(path, undo);
	snprintf(msg, sizeof(msg),
		 "debugfs %s \"%s\": %d injection points failed in turn, each ENOMEM",
		 file, line, n - 1);
	check(n > 1 && n < 200 && !bad, msg);
}

/* Every debugfs parser fed lines it must refuse; @hca: the HCA's dir. */
static void debugfs_junk(const char *ibdev, const char *hca)
{
	char drv[600], demo[600], root[600], long_line[300];

	/* new_device and del_device are in the HCAs' directory's parent. */
	snprintf(root, sizeof(root), "%s", hca);
	if (strrchr(root, '/'))
		*strrchr(root, '/') = '\0';
	snprintf(drv, sizeof(drv), DBG_DRV "/%s", ibdev);
	snprintf(demo, sizeof(demo), DBG_DEMO "/%s", ibdev);
	memset(long_line, '1', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';

	junk_write(hca, "mr_read", "junk", EINVAL);
	junk_write(hca, "mr_read", "0x100 0x0", EINVAL);
	junk_write(hca, "mr_read", "0x100 0x0 0", EINVAL);
	junk_write(hca, "mr_read", "0x100 0x0 2097152", EINVAL);
	junk_write(hca, "mr_read", long_line, EINVAL);
	junk_write(hca, "mr_read", "0xffffffff 0x0 8", ENOKEY);
	junk_write(hca, "reg_frmr", "junk", EINVAL);
	junk_write(hca, "reg_frmr", "0x100 0 0x0 4096 0x1", EINVAL);
	junk_write(hca, "reg_frmr", long_line, EINVAL);
	junk_write(hca, "reg_frmr", "0xffffffff 0 0x0 4096 0x1 0x0 1", ENOKEY);
	junk_write(hca, "fail_cmds", "many", EINVAL);
	junk_write(hca, "delay_ms", "-x", EINVAL);
	junk_write(hca, "fail_status", "0x", EINVAL);
	junk_write(hca, "drop_cmds", "1 2", EINVAL);
	junk_write(hca, "fault_opcode", "create", EINVAL);
	junk_write(hca, "drop_events", "99999999999999999999999", ERANGE);
	junk_write(hca, "event_delay_ms", "x1", EINVAL);
	junk_write(hca, "eq_lost", "1", EACCES);
	junk_write(hca, "hang", "on", EINVAL);
	junk_write(hca, "fatal", "-", EINVAL);
	junk_write(root, "new_device", "junk", EINVAL);
	junk_write(root, "new_device", "8", EINVAL);
	junk_write(root, "new_device", "0", EEXIST);
	junk_write(root, "del_device", "-1", EINVAL);
	junk_write(root, "del_device", "7", ENOENT);
	junk_write(drv, "fail_nth", "first", EINVAL);
	junk_write(demo, "kmr", "bogus", EINVAL);
	junk_write(demo, "kmr", "create create create", EINVAL);
	junk_write(demo, "loopback", "abc", EINVAL);
	junk_write(demo, "loopback", "0", EINVAL);
	junk_write(demo, "loopback", "2097152", EINVAL);
	junk_write(demo, "loopback", "99999999999", ERANGE);

	fault_each(drv, demo, "kmr", "create", "destroy");
	fault_each(drv, demo, "loopback", "4096", NULL);
}

/*
 * User CQs and RC QPs: their rings stay in the kernel and every work
 * request and completion goes through a uverbs command (POST_SEND,
 * POST_RECV, POLL_CQ), as with the ipath/hfi1 providers.
 */
#define BIT(n)		(1u << (n))
#define UQ_DEPTH	8
#define QPT_RC		2	/* IB_UVERBS_QPT_RC */
#define QPS_INIT	1
#define QPS_RTR		2
#define QPS_RTS		3
#define QP_STATE	BIT(0)	/* enum ib_qp_attr_mask */
#define QP_ACCESS	BIT(3)
#define QP_PKEY		BIT(4)
#define QP_PORT		BIT(5)
#define QP_AV		BIT(7)
#define QP_MTU		BIT(8)
#define QP_TIMEOUT	BIT(9)
#define QP_RETRY	BIT(10)
#define QP_RNR_RETRY	BIT(11)
#define QP_RQ_PSN	BIT(12)
#define QP_RD_ATOMIC	BIT(13)
#define QP_MIN_RNR	BIT(15)
#define QP_SQ_PSN	BIT(16)
#define QP_DEST_RD_ATOM	BIT(17)
#define QP_DEST_QPN	BIT(20)
#define SEND_SIGNALED	BIT(1)	/* enum ib_send_flags */
#define SEND_INLINE	BIT(3)
#define WC_RECV		128		/* IB_WC_RECV */

/* Build "core request + driver data" and issue it. */
static int uv_cmd_drv(int fd, __u32 command, const void *core, size_t core_len,
		      const void *drv, size_t drv_len, size_t resp_len,
		      const char *name)
{
	unsigned char in[512];

	if (core_len + drv_len > sizeof(in))
		return -E2BIG;
	memcpy(in, core, core_len);
	if (drv_len)
		memcpy(in + core_len, drv, drv_len);
	return uv_cmd(fd, command, in, core_len + drv_len, resp_len, name);
}

struct uq_cq_resp {
	struct ib_uverbs_create_cq_resp core;
	struct vroce_create_cq_resp drv;
};

static int uq_create_cq(int fd, const void *drv, size_t drv_len,
			struct uq_cq_resp *resp)
{
	struct ib_uverbs_create_cq c = {
		.response = (uintptr_t)resp,
		.cqe = 4 * UQ_DEPTH,
		.comp_channel = -1,
	};

	memset(resp, 0, sizeof(*resp));
	return uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), drv,
			  drv_len, sizeof(*resp), "CREATE_CQ");
}

static void uq_destroy_cq(int fd, __u32 handle)
{
	struct ib_uverbs_destroy_cq_resp resp;
	struct ib_uverbs_destroy_cq c = {
		.response = (uintptr_t)&resp, .cq_handle = handle,
	};

	check(!uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &c, sizeof(c),
		      sizeof(resp), "DESTROY_CQ"), "DESTROY_CQ");
}

/* Shared receive queues: CREATE_SRQ with vroce's driver data. */
struct uq_srq_resp {
	struct ib_uverbs_create_srq_resp core;
	struct vroce_create_srq_resp drv;
};

static int uq_create_srq(int fd, __u32 pd, const void *drv, size_t drv_len,
			 struct uq_srq_resp *resp)
{
	struct ib_uverbs_create_srq c = {
		.response = (uintptr_t)resp,
		.pd_handle = pd,
		.max_wr = UQ_DEPTH,
		.max_sge = 1,
	};

	memset(resp, 0, sizeof(*resp));
	return uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), drv,
			  drv_len, sizeof(*resp), "CREATE_SRQ");
}

static void uq_destroy_srq(int fd, __u32 handle)
{
	struct ib_uverbs_destroy_srq_resp resp;
	struct ib_uverbs_destroy_srq c = {
		.response = (uintptr_t)&resp, .srq_handle = handle,
	};

	check(!uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &c, sizeof(c),
		      sizeof(resp), "DESTROY_SRQ"), "DESTROY_SRQ");
}

/* Its driver data checked; a good one made and destroyed. */
static void uq_srq_checks(int fd, __u32 pd)
{
	struct vroce_create_srq drv = { .comp_mask = 4 };
	struct uq_srq_resp r;
	int err;

	err = uq_create_srq(fd, pd, &drv, sizeof(drv), &r);
	check(err == -EOPNOTSUPP, "CREATE_SRQ with an unknown comp_mask bit is EOPNOTSUPP");
	if (!err)
		uq_destroy_srq(fd, r.core.srq_handle);
	drv.comp_mask = 0;
	drv.reserved = 1;
	err = uq_create_srq(fd, pd, &drv, sizeof(drv), &r);
	check(err == -EINVAL, "CREATE_SRQ with a non-zero reserved field is EINVAL");
	if (!err)
		uq_destroy_srq(fd, r.core.srq_handle);
	drv.reserved = 0;
	err = uq_create_srq(fd, pd, &drv, sizeof(drv), &r);
	check(!err && r.drv.srqn && r.drv.depth >= UQ_DEPTH &&
	      r.core.max_wr == r.drv.depth, "CREATE_SRQ of a user SRQ");
	if (!err)
		uq_destroy_srq(fd, r.core.srq_handle);
}

struct uq_qp_resp {
	struct ib_uverbs_create_qp_resp core;
	struct vroce_create_qp_resp drv;
};

static int uq_create_qp(int fd, __u32 pd, __u32 cq, __u32 max_inline,
			const void *drv, size_t drv_len, struct uq_qp_resp *resp)
{
	struct ib_uverbs_create_qp c = {
		.response = (uintptr_t)resp,
		.pd_handle = pd,
		.send_cq_handle = cq,
		.recv_cq_handle = cq,
		.max_send_wr = UQ_DEPTH,
		.max_recv_wr = UQ_DEPTH,
		.max_send_sge = 4,
		.max_recv_sge = 1,
		.max_inline_data = max_inline,
		.qp_type = QPT_RC,
	};

	memset(resp, 0, sizeof(*resp));
	return uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), drv,
			  drv_len, sizeof(*resp), "CREATE_QP");
}

static void uq_destroy_qp(int fd, __u32 handle)
{
	struct ib_uverbs_destroy_qp_resp resp;
	struct ib_uverbs_destroy_qp c = {
		.response = (uintptr_t)&resp, .qp_handle = handle,
	};

	check(!uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &c, sizeof(c),
		      sizeof(resp), "DESTROY_QP"), "DESTROY_QP");
}

/* The port's GID 0, from sysfs ("fe80:0000:...", eight groups). */
static int uq_gid0(const char *ibdev, __u8 gid[16])
{
	unsigned int g[8];
	char path[512], line[64];
	int i;

	snprintf(path, sizeof(path), SYS_IB "/%s/ports/1/gids/0", ibdev);
	if (read_line(path, line, sizeof(line)) ||
	    sscanf(line, "%x:%x:%x:%x:%x:%x:%x:%x", &g[0], &g[1], &g[2], &g[3],
		   &g[4], &g[5], &g[6], &g[7]) != 8)
		return -1;
	for (i = 0; i < 8; i++) {
		gid[2 * i] = (__u8)(g[i] >> 8);
		gid[2 * i + 1] = (__u8)g[i];
	}
	return 0;
}

/* RESET -> INIT -> RTR -> RTS, connected to @dest_qpn on this port. */
static int uq_connect(int fd, __u32 handle, __u32 dest_qpn, const __u8 gid[16])
{
	struct ib_uverbs_modify_qp c = {
		.qp_handle = handle,
		.attr_mask = QP_STATE | QP_PKEY | QP_PORT | QP_ACCESS,
		.qp_state = QPS_INIT,
		.port_num = 1,
		.dest = { .port_num = 1 },
		.qp_access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE |
				   IB_UVERBS_ACCESS_REMOTE_WRITE |
				   IB_UVERBS_ACCESS_REMOTE_READ,
	};
	int err;

	err = uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), 0,
		     "MODIFY_QP INIT");
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	c.qp_handle = handle;
	c.attr_mask = QP_STATE | QP_AV | QP_MTU | QP_DEST_QPN | QP_RQ_PSN |
		      QP_DEST_RD_ATOM | QP_MIN_RNR;
	c.qp_state = QPS_RTR;
	c.path_mtu = 3;		/* IB_MTU_1024 */
	c.dest_qp_num = dest_qpn;
	c.max_dest_rd_atomic = 1;
	c.min_rnr_timer = 12;
	memcpy(c.dest.dgid, gid, 16);
	c.dest.is_global = 1;
	c.dest.hop_limit = 64;
	c.dest.port_num = 1;
	err = uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), 0,
		     "MODIFY_QP RTR");
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	c.qp_handle = handle;
	c.attr_mask = QP_STATE | QP_TIMEOUT | QP_RETRY | QP_RNR_RETRY |
		      QP_SQ_PSN | QP_RD_ATOMIC;
	c.qp_state = QPS_RTS;
	c.timeout = 14;
	c.retry_cnt = 7;
	c.rnr_retry = 7;
	c.max_rd_atomic = 1;
	return uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), 0,
		      "MODIFY_QP RTS");
}

/* One send work request with up to 5 SGEs through POST_SEND. */
static int uq_post_send(int fd, __u32 qp, __u32 opcode, __u32 flags,
			const struct ib_uverbs_sge *sge, __u32 nsge,
			__u64 remote_addr, __u32 rkey, __u64 wr_id)
{
	struct {
		struct ib_uverbs_post_send c;
		struct ib_uverbs_send_wr wr;
		struct ib_uverbs_sge sge[5];
	} req = { 0 };
	struct ib_uverbs_post_send_resp resp = { 0 };

	req.c.response = (uintptr_t)&resp;
	req.c.qp_handle = qp;
	req.c.wr_count = 1;
	req.c.sge_count = nsge;
	req.c.wqe_size = sizeof(req.wr);
	req.wr.wr_id = wr_id;
	req.wr.num_sge = nsge;
	req.wr.opcode = opcode;
	req.wr.send_flags = flags;
	req.wr.wr.rdma.remote_addr = remote_addr;
	req.wr.wr.rdma.rkey = rkey;
	memcpy(req.sge, sge, nsge * sizeof(*sge));
	return uv_cmd(fd, IB_USER_VERBS_CMD_POST_SEND, &req,
		      sizeof(req.c) + sizeof(req.wr) + nsge * sizeof(*sge),
		      sizeof(resp), "POST_SEND");
}

static int uq_post_recv(int fd, __u32 qp, const struct ib_uverbs_sge *sge,
			__u64 wr_id)
{
	struct {
		struct ib_uverbs_post_recv c;
		struct ib_uverbs_recv_wr wr;
		struct ib_uverbs_sge sge;
	} req = { 0 };
	struct ib_uverbs_post_recv_resp resp = { 0 };

	req.c.response = (uintptr_t)&resp;
	req.c.qp_handle = qp;
	req.c.wr_count = 1;
	req.c.sge_count = 1;
	req.c.wqe_size = sizeof(req.wr);
	req.wr.wr_id = wr_id;
	req.wr.num_sge = 1;
	req.sge = *sge;
	return uv_cmd(fd, IB_USER_VERBS_CMD_POST_RECV, &req, sizeof(req),
		      sizeof(resp), "POST_RECV");
}

/* Milliseconds on the monotonic clock. */
static long long uq_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Poll @cq through POLL_CQ until @n completions or @ms milliseconds. */
static int uq_poll(int fd, __u32 cq, struct ib_uverbs_wc *wc, int n, int ms)
{
	struct {
		struct ib_uverbs_poll_cq_resp r;
		struct ib_uverbs_wc wc[4];
	} resp;
	struct ib_uverbs_poll_cq c = {
		.response = (uintptr_t)&resp, .cq_handle = cq, .ne = 1,
	};
	long long deadline = uq_now_ms() + ms;
	int got = 0;

	while (got < n && uq_now_ms() < deadline) {
		memset(&resp, 0, sizeof(resp));
		if (uv_cmd(fd, IB_USER_VERBS_CMD_POLL_CQ, &c, sizeof(c),
			   sizeof(resp.r) + sizeof(resp.wc[0]), "POLL_CQ"))
			return -1;
		if (resp.r.count)
			wc[got++] = resp.wc[0];
		else
			usleep(1000);
	}
	return got;
}

/*
 * Poll @n completions (one of opcode @op on QP @qpn, and with @n == 2 the
 * receive of @byte_len bytes, in either order) and compare the bytes.
 */
static void uq_expect(int fd, __u32 cq, int n, __u32 qpn, __u32 op,
		      __u32 byte_len, const void *got, const void *want,
		      size_t len, const char *what)
{
	struct ib_uverbs_wc wc[2];
	int i, ok, seen_op = 0, seen_recv = 0;
	char msg[200];

	ok = uq_poll(fd, cq, wc, n, 3000) == n;
	for (i = 0; ok && i < n; i++) {
		if (wc[i].status)
			ok = 0;
		else if (wc[i].qp_num == qpn && wc[i].opcode == op)
			seen_op++;
		else if (wc[i].opcode == WC_RECV && wc[i].byte_len == byte_len)
			seen_recv++;
	}
	ok = ok && seen_op == 1 && seen_recv == n - 1 && !memcmp(got, want, len);
	snprintf(msg, sizeof(msg),
		 "user QP: %s, completion polled through POLL_CQ, bytes match",
		 what);
	check(ok, msg);
}

static void user_qps(int fd, const char *ibdev, __u32 pd, __u32 src_lkey,
		     const unsigned char *src, __u64 src_iova)
{
	struct vroce_create_cq cq_drv = { 0 };
	struct vroce_create_qp qp_drv = { 0 };
	struct ib_uverbs_reg_mr_resp mr = { 0 };
	struct uq_cq_resp cq;
	struct uq_qp_resp qp[2], bad;
	struct ib_uverbs_sge sge[5];
	unsigned char *dst = NULL;
	__u32 drv_big[sizeof(struct vroce_create_cq) / 4 + 1] = { 0 };
	size_t dlen = 3 * 4096;
	int err, i, have_mr = 0, nqp = 0;
	__u8 gid[16];
	char msg[200];

	/* Driver data of CREATE_CQ: what the uapi rules refuse (bit 0: MAPPED). */
	cq_drv.comp_mask = 4;
	err = uq_create_cq(fd, &cq_drv, sizeof(cq_drv), &cq);
	check(err == -EOPNOTSUPP, "CREATE_CQ with an unknown comp_mask bit is EOPNOTSUPP");
	if (!err)
		uq_destroy_cq(fd, cq.core.cq_handle);
	cq_drv.comp_mask = 0;
	cq_drv.reserved = 1;
	err = uq_create_cq(fd, &cq_drv, sizeof(cq_drv), &cq);
	check(err == -EINVAL, "CREATE_CQ with a reserved field set is EINVAL");
	if (!err)
		uq_destroy_cq(fd, cq.core.cq_handle);
	drv_big[sizeof(drv_big) / 4 - 1] = 1;
	err = uq_create_cq(fd, drv_big, sizeof(drv_big), &cq);
	check(err == -EOPNOTSUPP,
	      "CREATE_CQ with non-zero bytes past the driver data is EOPNOTSUPP");
	if (!err)
		uq_destroy_cq(fd, cq.core.cq_handle);
	drv_big[sizeof(drv_big) / 4 - 1] = 0;
	err = uq_create_cq(fd, drv_big, sizeof(drv_big), &cq);
	check(!err, "CREATE_CQ with zero bytes past the driver data");
	if (!err)
		uq_destroy_cq(fd, cq.core.cq_handle);
	err = uq_create_cq(fd, NULL, 0, &cq);
	check(!err, "CREATE_CQ without driver data (defaults)");
	if (!err)
		uq_destroy_cq(fd, cq.core.cq_handle);

	/*
	 * An older provider's shorter request (issue 30's: comp_mask only,
	 * the reserved word set above cut off): the rest is zero-filled.
	 */
	err = uq_create_cq(fd, &cq_drv, sizeof(cq_drv.comp_mask), &cq);
	check(!err, "CREATE_CQ with shorter driver data (the rest defaults)");
	if (!err)
		uq_destroy_cq(fd, cq.core.cq_handle);
	cq_drv.reserved = 0;
	err = uq_create_cq(fd, &cq_drv, sizeof(cq_drv), &cq);
	check(!err && cq.core.cqe >= 4 * UQ_DEPTH,
	      "CREATE_CQ of a user CQ");
	if (err)
		return;
	printf("# uverbs: user CQ handle %u, cqn %u, %u CQEs\n",
	       cq.core.cq_handle, cq.drv.cqn, cq.core.cqe);

	uq_srq_checks(fd, pd);

	qp_drv.comp_mask = 4;
	err = uq_create_qp(fd, pd, cq.core.cq_handle, 0, &qp_drv,
			   sizeof(qp_drv), &bad);
	check(err == -EOPNOTSUPP, "CREATE_QP with an unknown comp_mask bit is EOPNOTSUPP");
	if (!err)
		uq_destroy_qp(fd, bad.core.qp_handle);
	qp_drv.comp_mask = 0;
	/* Inline data: up to the send WQE's 64 bytes, granted in full. */
	err = uq_create_qp(fd, pd, cq.core.cq_handle, 16, &qp_drv,
			   sizeof(qp_drv), &bad);
	check(!err && bad.core.max_inline_data == 64,
	      "CREATE_QP of a user QP asking 16 bytes of inline data gets 64");
	if (!err)
		uq_destroy_qp(fd, bad.core.qp_handle);
	err = uq_create_qp(fd, pd, cq.core.cq_handle, 65, &qp_drv,
			   sizeof(qp_drv), &bad);
	check(err == -EINVAL, "CREATE_QP of a user QP asking 65 bytes of inline data is EINVAL");
	if (!err)
		uq_destroy_qp(fd, bad.core.qp_handle);
	for (i = 0; i < 2; i++) {
		err = uq_create_qp(fd, pd, cq.core.cq_handle, 0, &qp_drv,
				   sizeof(qp_drv), &qp[i]);
		snprintf(msg, sizeof(msg), "CREATE_QP of user RC QP %d", i);
		check(!err && qp[i].drv.qpn == qp[i].core.qpn &&
		      qp[i].core.max_inline_data == 64 &&
		      qp[i].drv.sq_depth >= UQ_DEPTH &&
		      qp[i].drv.rq_depth >= UQ_DEPTH, msg);
		if (err)
			goto out;
		nqp++;
	}
	printf("# uverbs: user QPs %u and %u\n", qp[0].core.qpn, qp[1].core.qpn);

	{
		/* The device has one port: port 2 is refused, state kept. */
		struct ib_uverbs_modify_qp c = {
			.qp_handle = qp[0].core.qp_handle,
			.attr_mask = QP_STATE | QP_PKEY | QP_PORT | QP_ACCESS,
			.qp_state = QPS_INIT,
			.port_num = 2,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c),
			     0, "MODIFY_QP port 2");
		check(err == -EINVAL, "MODIFY_QP to INIT on port 2 is EINVAL");
	}

	if (uq_gid0(ibdev, gid)) {
		check(0, "read the port's GID 0");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		err = uq_connect(fd, qp[i].core.qp_handle, qp[!i].core.qpn, gid);
		snprintf(msg, sizeof(msg),
			 "MODIFY_QP of user QP %d to RTS (AV: the port's GID 0)",
			 i);
		check(!err, msg);
		if (err)
			goto out;
	}

	if (posix_memalign((void **)&dst, 4096, dlen)) {
		dst = NULL;
		check(0, "allocate the receive buffer");
		goto out;
	}
	memset(dst, 0, dlen);
	{
		struct ib_uverbs_reg_mr c = {
			.response = (uintptr_t)&mr,
			.start = (uintptr_t)dst,
			.length = dlen,
			.hca_va = (uintptr_t)dst,
			.pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE |
					IB_UVERBS_ACCESS_REMOTE_WRITE,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
			     sizeof(mr), "REG_MR (receive buffer)");
		check(!err, "REG_MR of the receive buffer");
		if (err)
			goto out;
		have_mr = 1;
	}

	/* SEND of 200 bytes, across a page of the source, into a RECV. */
	sge[0] = (struct ib_uverbs_sge){ .addr = (uintptr_t)dst, .length = 256,
					 .lkey = mr.lkey };
	err = uq_post_recv(fd, qp[1].core.qp_handle, sge, 1);
	check(!err, "POST_RECV on a user QP");
	sge[0] = (struct ib_uverbs_sge){ .addr = src_iova + 3900,
					 .length = 200, .lkey = src_lkey };
	err = uq_post_send(fd, qp[0].core.qp_handle, IB_UVERBS_WR_SEND,
			   SEND_SIGNALED, sge, 1, 0, 0, 2);
	check(!err, "POST_SEND (SEND) on a user QP");
	if (!err)
		uq_expect(fd, cq.core.cq_handle, 2, qp[0].core.qpn,
			  IB_UVERBS_WC_SEND, 200, dst, src + 3900, 200,
			  "SEND 200 B");

	/* RDMA WRITE of 300 bytes from two SGEs into the receive MR. */
	sge[0] = (struct ib_uverbs_sge){ .addr = src_iova, .length = 100,
					 .lkey = src_lkey };
	sge[1] = (struct ib_uverbs_sge){ .addr = src_iova + 1000,
					 .length = 200, .lkey = src_lkey };
	err = uq_post_send(fd, qp[0].core.qp_handle, IB_UVERBS_WR_RDMA_WRITE,
			   SEND_SIGNALED, sge, 2,
			   (uintptr_t)dst + 4096, mr.rkey, 3);
	check(!err, "POST_SEND (RDMA WRITE) on a user QP");
	if (!err)
		uq_expect(fd, cq.core.cq_handle, 1, qp[0].core.qpn,
			  IB_UVERBS_WC_RDMA_WRITE, 0, dst + 4096, src, 100,
			  "RDMA WRITE 300 B (first SGE)");
	check(!memcmp(dst + 4096 + 100, src + 1000, 200),
	      "user QP: RDMA WRITE 300 B (second SGE) bytes match");

	/* RDMA READ of 500 bytes of the source MR (remote read granted). */
	sge[0] = (struct ib_uverbs_sge){ .addr = (uintptr_t)dst + 8192,
					 .length = 500, .lkey = mr.lkey };
	err = uq_post_send(fd, qp[1].core.qp_handle, IB_UVERBS_WR_RDMA_READ,
			   SEND_SIGNALED, sge, 1, src_iova + 2000,
			   src_lkey, 4);
	check(!err, "POST_SEND (RDMA READ) on a user QP");
	if (!err)
		uq_expect(fd, cq.core.cq_handle, 1, qp[1].core.qpn,
			  IB_UVERBS_WC_RDMA_READ, 0, dst + 8192, src + 2000,
			  500, "RDMA READ 500 B");

	/*
	 * Inline data: the kernel copies it from this process's addresses
	 * (no lkey) at POST_SEND. 30 + 34 bytes from two SGEs.
	 */
	sge[0] = (struct ib_uverbs_sge){ .addr = (uintptr_t)dst + 256,
					 .length = 256, .lkey = mr.lkey };
	err = uq_post_recv(fd, qp[1].core.qp_handle, sge, 1);
	check(!err, "POST_RECV for an inline SEND");
	sge[0] = (struct ib_uverbs_sge){ .addr = (uintptr_t)src + 100,
					 .length = 30 };
	sge[1] = (struct ib_uverbs_sge){ .addr = (uintptr_t)src + 130,
					 .length = 34 };
	err = uq_post_send(fd, qp[0].core.qp_handle, IB_UVERBS_WR_SEND,
			   SEND_SIGNALED | SEND_INLINE, sge, 2, 0, 0, 7);
	check(!err, "POST_SEND of 64 bytes inline on a user QP");
	if (!err)
		uq_expect(fd, cq.core.cq_handle, 2, qp[0].core.qpn,
			  IB_UVERBS_WC_SEND, 64, dst + 256, src + 100, 64,
			  "inline SEND 64 B");
	/* 65 bytes: more than max_inline_data. */
	sge[1].length = 35;
	err = uq_post_send(fd, qp[0].core.qp_handle, IB_UVERBS_WR_SEND,
			   SEND_SIGNALED | SEND_INLINE, sge, 2, 0, 0, 5);
	check(err == -EINVAL, "POST_SEND of 65 bytes inline on a user QP is EINVAL");
	/* An address the process cannot read (a kernel one). */
	sge[0] = (struct ib_uverbs_sge){ .addr = 0xffff888000000000ULL,
					 .length = 16 };
	err = uq_post_send(fd, qp[0].core.qp_handle, IB_UVERBS_WR_SEND,
			   SEND_SIGNALED | SEND_INLINE, sge, 1, 0, 0, 5);
	check(err == -EFAULT, "POST_SEND inline from an unreadable address is EFAULT");
	/* More SGEs than the QP takes. */
	for (i = 0; i < 5; i++)
		sge[i] = (struct ib_uverbs_sge){ .addr = src_iova, .length = 1,
						 .lkey = src_lkey };
	err = uq_post_send(fd, qp[0].core.qp_handle, IB_UVERBS_WR_SEND,
			   SEND_SIGNALED, sge, 5, 0, 0, 6);
	check(err == -EINVAL, "POST_SEND with 5 SGEs (the QP takes 4) is EINVAL");
	/* Nothing more completes: the refused requests were never posted. */
	{
		struct ib_uverbs_wc wc;

		check(uq_poll(fd, cq.core.cq_handle, &wc, 1, 200) == 0,
		      "user QP: refused work requests leave no completion");
	}

out:
	while (nqp--)
		uq_destroy_qp(fd, qp[nqp].core.qp_handle);
	if (have_mr) {
		struct ib_uverbs_dereg_mr d = { .mr_handle = mr.mr_handle };

		check(!uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &d, sizeof(d), 0,
			      "DEREG_MR"), "DEREG_MR of the receive buffer");
	}
	uq_destroy_cq(fd, cq.core.cq_handle);
	free(dst);
}

/* ---- issue 31: mapped rings, through the raw uverbs ABI ---- */

/*
 * The HCA's formats as this test writes and reads them (c/ifc/vroce_wqe.h,
 * which needs the kernel's headers): a send WQE, a receive WQE, a CQE.
 */
struct mq_sge {
	__u64 addr;
	__u32 length;
	__u32 lkey;
};

struct mq_send_wqe {
	__u64 wr_id;
	__u8 opcode, flags, num_sge, rsvd0;
	__u32 imm_inv;
	__u64 remote_addr;
	__u32 rkey, inline_len;
	__u64 op0, op1;
	__u32 fr_key, fr_access;
	__u8 rsvd1[8];
	struct mq_sge sge[4];
	__u8 av[64];
	__u8 rsvd2[64];
};

struct mq_recv_wqe {
	__u64 wr_id;
	__u8 num_sge, srq_done, rsvd[6];
	struct mq_sge sge[3];
};

struct mq_cqe {
	__u64 wr_id;
	__u32 qpn, byte_len, imm_inv, src_qp;
	__u16 wqe_idx;
	__u8 opcode, status, flags, net_type;
	__u8 smac[6];
	__u16 pkey_index;
	__u8 rsvd[25];
	__u8 owner;
};

static_assert(sizeof(struct mq_send_wqe) == 256, "send WQE");
static_assert(sizeof(struct mq_recv_wqe) == 64, "recv WQE");
static_assert(sizeof(struct mq_cqe) == 64, "CQE");

#define MQ_PAGE		4096
#define MQ_CQ_DEPTH	64	/* one page of CQEs */
#define MQ_SQ_DEPTH	16	/* one page of send WQEs */
#define MQ_RQ_DEPTH	64	/* one page of receive WQEs */
#define MQ_WQE_SEND	0
#define MQ_WQE_F_SIGNALED 1

/* @n pages of fresh memory, @prot: mmap's. */
static void *mq_pages(size_t n, int prot)
{
	void *p = mmap(NULL, n * MQ_PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int mq_create_cq(int fd, __u32 cqe, __u32 mask, __u64 buf,
			__u64 rec, __u32 depth, struct uq_cq_resp *resp)
{
	struct ib_uverbs_create_cq c = {
		.response = (uintptr_t)resp,
		.cqe = cqe,
		.comp_channel = -1,
	};
	struct vroce_create_cq drv = {
		.comp_mask = mask, .buf_addr = buf, .dbrec_addr = rec,
		.depth = depth,
	};

	memset(resp, 0, sizeof(*resp));
	return uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), &drv,
			  sizeof(drv), sizeof(*resp), "CREATE_CQ (mapped)");
}

static int mq_create_qp(int fd, __u32 pd, __u32 cq,
			const struct vroce_create_qp *drv,
			struct uq_qp_resp *resp)
{
	struct ib_uverbs_create_qp c = {
		.response = (uintptr_t)resp,
		.pd_handle = pd,
		.send_cq_handle = cq,
		.recv_cq_handle = cq,
		.max_send_wr = UQ_DEPTH,
		.max_recv_wr = UQ_DEPTH,
		.max_send_sge = 4,
		.max_recv_sge = 1,
		.qp_type = QPT_RC,
	};

	memset(resp, 0, sizeof(*resp));
	return uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), drv,
			  sizeof(*drv), sizeof(*resp), "CREATE_QP (mapped)");
}

/* A counter of the port (hw_counters), or -1. */
static long long mq_counter(const char *ibdev, const char *name)
{
	char path[512], line[64];

	snprintf(path, sizeof(path), SYS_IB "/%s/ports/1/hw_counters/%s",
		 ibdev, name);
	if (read_line(path, line, sizeof(line)))
		return -1;
	return atoll(line);
}

/* The QP's state (QUERY_QP), or -1. */
static int mq_qp_state(int fd, __u32 handle)
{
	struct ib_uverbs_query_qp_resp resp = { 0 };
	struct ib_uverbs_query_qp c = {
		.response = (uintptr_t)&resp, .qp_handle = handle,
		.attr_mask = QP_STATE,
	};

	if (uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c),
		   sizeof(resp), "QUERY_QP"))
		return -1;
	return resp.qp_state;
}

/* Read CQE @n of a mapped ring once the HCA wrote it, within @ms. */
static struct mq_cqe *mq_cqe(struct mq_cqe *ring, __u32 log2, __u32 n,
			     int ms)
{
	struct mq_cqe *cqe = &ring[n & ((1u << log2) - 1)];
	long long deadline = uq_now_ms() + ms;

	while ((__atomic_load_n(&cqe->owner, __ATOMIC_ACQUIRE) & 1) ==
	       ((n >> log2) & 1)) {
		if (uq_now_ms() >= deadline)
			return NULL;
		usleep(1000);
	}
	return cqe;
}

static void mq_post_send_none(int fd, __u32 qp, int *err)
{
	struct {
		struct ib_uverbs_post_send c;
	} req = { 0 };
	struct ib_uverbs_post_send_resp resp = { 0 };

	req.c.response = (uintptr_t)&resp;
	req.c.qp_handle = qp;
	req.c.wqe_size = sizeof(struct ib_uverbs_send_wr);
	*err = uv_cmd(fd, IB_USER_VERBS_CMD_POST_SEND, &req, sizeof(req),
		      sizeof(resp), "POST_SEND (doorbell)");
}

/*
 * Mapped rings: every field CREATE_CQ and CREATE_QP check, the uverbs
 * data path commands a mapped queue refuses, then a SEND through rings
 * this program writes and reads itself with one doorbell system call,
 * then garbage in the records: only that QP or CQ fails, counted.
 */
static void user_mapped(int fd, const char *ibdev, const char *hca, __u32 pd,
			__u32 src_lkey, const unsigned char *src,
			__u64 src_iova)
{
	char nth[600], knob[700], knob2[700], num[16], msg[200];
	int n, bad_err;
	unsigned char *cq_ring = NULL, *ro = NULL, *hole = NULL, *recs = NULL;
	unsigned char *sq[3] = { NULL, NULL, NULL }, *rq[3] = { NULL, NULL, NULL };
	unsigned char *two = NULL, *dst = NULL;
	struct vroce_qp_dbrec *qrec[3];
	struct vroce_cq_dbrec *crec;
	struct ib_uverbs_reg_mr_resp mr = { 0 };
	struct uq_cq_resp cq, plain, bad;
	struct uq_qp_resp qp[3], qbad;
	struct vroce_create_qp qd;
	struct mq_cqe *cqe;
	long long before, deadline;
	__u8 gid[16];
	int err, i, have_cq = 0, have_plain = 0, nqp = 0, have_mr = 0;
	__u32 ci = 0;

	cq_ring = mq_pages(1, PROT_READ | PROT_WRITE);
	ro = mq_pages(2, PROT_READ);
	two = mq_pages(2, PROT_READ | PROT_WRITE);
	recs = mq_pages(1, PROT_READ | PROT_WRITE);
	hole = mq_pages(1, PROT_READ | PROT_WRITE);
	for (i = 0; i < 3; i++) {
		sq[i] = mq_pages(1, PROT_READ | PROT_WRITE);
		rq[i] = mq_pages(1, PROT_READ | PROT_WRITE);
	}
	dst = mq_pages(1, PROT_READ | PROT_WRITE);
	if (!cq_ring || !ro || !two || !recs || !hole || !sq[0] || !sq[1] ||
	    !rq[0] || !rq[1] || !sq[2] || !rq[2] || !dst) {
		check(0, "mapped rings: allocate the rings");
		return;
	}
	/* @hole: an address nothing is mapped at; @two: a page, then none. */
	munmap(hole, MQ_PAGE);
	munmap(two + MQ_PAGE, MQ_PAGE);
	crec = (struct vroce_cq_dbrec *)recs;
	qrec[0] = (struct vroce_qp_dbrec *)(recs + 64);
	qrec[1] = (struct vroce_qp_dbrec *)(recs + 128);
	qrec[2] = (struct vroce_qp_dbrec *)(recs + 192);

	/* CREATE_CQ: the ring and the record, as vroce-abi.h has them. */
#define MQ_CQ_BAD(buf, rec, depth, cqe, want, what)				\
	do {									\
		err = mq_create_cq(fd, cqe, VROCE_CREATE_CQ_MAPPED,		\
				   (uintptr_t)(buf), (uintptr_t)(rec), depth,	\
				   &bad);					\
		check(err == -(want), what);		\
		if (!err)							\
			uq_destroy_cq(fd, bad.core.cq_handle);			\
	} while (0)
	MQ_CQ_BAD(cq_ring + 64, crec, MQ_CQ_DEPTH, 16, EINVAL,
		  "mapped CREATE_CQ of a ring not page aligned is EINVAL");
	MQ_CQ_BAD(0, crec, MQ_CQ_DEPTH, 16, EINVAL,
		  "mapped CREATE_CQ of ring address 0 is EINVAL");
	MQ_CQ_BAD(cq_ring, crec, 192, 16, EINVAL,
		  "mapped CREATE_CQ of depth 192 (not a power of two) is EINVAL");
	MQ_CQ_BAD(cq_ring, crec, 65536, 16, EINVAL,
		  "mapped CREATE_CQ of depth 65536 (the HCA's most is 32768) is EINVAL");
	MQ_CQ_BAD(cq_ring, crec, 1, 1, EINVAL,
		  "mapped CREATE_CQ of depth 1 (two at least) is EINVAL");
	MQ_CQ_BAD(cq_ring, crec, MQ_CQ_DEPTH, 100, EINVAL,
		  "mapped CREATE_CQ of depth 64 for 100 CQEs asked is EINVAL");
	MQ_CQ_BAD(two, crec, 2 * MQ_CQ_DEPTH, 16, EFAULT,
		  "mapped CREATE_CQ of a ring shorter than its depth (2 pages, 1 mapped) is EFAULT");
	MQ_CQ_BAD(ro, crec, MQ_CQ_DEPTH, 16, EFAULT,
		  "mapped CREATE_CQ of a read-only ring is EFAULT");
	MQ_CQ_BAD(cq_ring, (unsigned char *)crec + 4, MQ_CQ_DEPTH, 16, EINVAL,
		  "mapped CREATE_CQ of a record not 8-byte aligned is EINVAL");
	MQ_CQ_BAD(cq_ring, 0, MQ_CQ_DEPTH, 16, EINVAL,
		  "mapped CREATE_CQ of record address 0 is EINVAL");
	MQ_CQ_BAD(cq_ring, hole, MQ_CQ_DEPTH, 16, EFAULT,
		  "mapped CREATE_CQ of a record in unmapped memory is EFAULT");
	MQ_CQ_BAD(cq_ring, ro, MQ_CQ_DEPTH, 16, EFAULT,
		  "mapped CREATE_CQ of a read-only record is EFAULT");
	err = mq_create_cq(fd, 16, 0, (uintptr_t)cq_ring, 0, 0, &bad);
	check(err == -EINVAL,
	      "CREATE_CQ with a ring address but no MAPPED bit is EINVAL");
	if (!err)
		uq_destroy_cq(fd, bad.core.cq_handle);

	/* Each allocation of a mapped create fails in turn, unwound. */
	snprintf(nth, sizeof(nth), DBG_DRV "/%s/fail_nth", ibdev);
	for (n = 1, bad_err = 0; n < 100; n++) {
		snprintf(num, sizeof(num), "%d", n);
		if (write_line(nth, num))
			break;
		err = mq_create_cq(fd, 16, VROCE_CREATE_CQ_MAPPED,
				   (uintptr_t)cq_ring, (uintptr_t)crec,
				   MQ_CQ_DEPTH, &bad);
		if (!err) {
			uq_destroy_cq(fd, bad.core.cq_handle);
			break;
		}
		if (err != -ENOMEM)
			bad_err++;
	}
	write_line(nth, "0");
	snprintf(msg, sizeof(msg),
		 "mapped CREATE_CQ: %d injection points failed in turn, each ENOMEM",
		 n - 1);
	check(n > 2 && n < 100 && !bad_err, msg);

	err = mq_create_cq(fd, 16, VROCE_CREATE_CQ_MAPPED, (uintptr_t)cq_ring,
			   (uintptr_t)crec, MQ_CQ_DEPTH, &cq);
	check(!err && (cq.drv.comp_mask & VROCE_CREATE_CQ_MAPPED) &&
	      cq.core.cqe == MQ_CQ_DEPTH, "mapped CREATE_CQ of a 64-CQE ring");
	if (err)
		goto out;
	have_cq = 1;
	{
		struct {
			struct ib_uverbs_poll_cq_resp r;
			struct ib_uverbs_wc wc;
		} resp;
		struct ib_uverbs_poll_cq c = {
			.response = (uintptr_t)&resp,
			.cq_handle = cq.core.cq_handle, .ne = 1,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_POLL_CQ, &c, sizeof(c),
			     sizeof(resp), "POLL_CQ (mapped)");
		check(err == -EOPNOTSUPP, "POLL_CQ of a mapped CQ is EOPNOTSUPP");
	}
	{
		struct ib_uverbs_resize_cq_resp resp;
		struct ib_uverbs_resize_cq c = {
			.response = (uintptr_t)&resp,
			.cq_handle = cq.core.cq_handle, .cqe = 200,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c),
			     sizeof(resp), "RESIZE_CQ (mapped)");
		check(err == -EINVAL,
		      "RESIZE_CQ of a mapped CQ without a new ring is EINVAL");
	}
	err = uq_create_cq(fd, NULL, 0, &plain);
	check(!err, "CREATE_CQ of a CQ that is not mapped, beside");
	if (err)
		goto out;
	have_plain = 1;

	/* CREATE_SRQ: a mapped SRQ's ring and record; no POST_SRQ_RECV. */
	{
		struct vroce_create_srq sd = {
			.comp_mask = VROCE_CREATE_SRQ_MAPPED,
			.buf_addr = (uintptr_t)rq[2] + 64,
			.dbrec_addr = (uintptr_t)(recs + 256),
			.depth = MQ_RQ_DEPTH,
		};
		struct uq_srq_resp sr;
		struct {
			struct ib_uverbs_post_srq_recv c;
			struct ib_uverbs_recv_wr wr;
		} pr = { 0 };
		struct ib_uverbs_post_srq_recv_resp prr;

		err = uq_create_srq(fd, pd, &sd, sizeof(sd), &sr);
		check(err == -EINVAL,
		      "mapped CREATE_SRQ of a ring not page aligned is EINVAL");
		if (!err)
			uq_destroy_srq(fd, sr.core.srq_handle);
		sd.buf_addr = (uintptr_t)rq[2];
		sd.depth = 4;
		err = uq_create_srq(fd, pd, &sd, sizeof(sd), &sr);
		check(err == -EINVAL,
		      "mapped CREATE_SRQ of depth 4 for 8 WQEs asked is EINVAL");
		if (!err)
			uq_destroy_srq(fd, sr.core.srq_handle);
		sd.depth = MQ_RQ_DEPTH;
		err = uq_create_srq(fd, pd, &sd, sizeof(sd), &sr);
		check(!err && (sr.drv.comp_mask & VROCE_CREATE_SRQ_MAPPED) &&
		      sr.drv.depth == MQ_RQ_DEPTH, "mapped CREATE_SRQ");
		if (!err) {
			pr.c.response = (uintptr_t)&prr;
			pr.c.srq_handle = sr.core.srq_handle;
			pr.c.wr_count = 1;
			pr.c.wqe_size = sizeof(pr.wr);
			err = uv_cmd(fd, IB_USER_VERBS_CMD_POST_SRQ_RECV, &pr,
				     sizeof(pr), sizeof(prr),
				     "POST_SRQ_RECV (mapped)");
			check(err == -EOPNOTSUPP,
			      "POST_SRQ_RECV on a mapped SRQ is EOPNOTSUPP");
			uq_destroy_srq(fd, sr.core.srq_handle);
		}
	}

	/* CREATE_QP: both rings, the record, and the CQs mapped too. */
#define MQ_QD(sqb, sqd, rqb, rqd, rec)						\
	((struct vroce_create_qp){ .comp_mask = VROCE_CREATE_QP_MAPPED,	\
		.sq_buf_addr = (uintptr_t)(sqb), .sq_depth = (sqd),		\
		.rq_buf_addr = (uintptr_t)(rqb), .rq_depth = (rqd),		\
		.dbrec_addr = (uintptr_t)(rec) })
#define MQ_QP_BAD(cqh, d, want, what)						\
	do {									\
		qd = d;								\
		err = mq_create_qp(fd, pd, cqh, &qd, &qbad);			\
		check(err == -(want), what);					\
		if (!err)							\
			uq_destroy_qp(fd, qbad.core.qp_handle);			\
	} while (0)
	MQ_QP_BAD(plain.core.cq_handle,
		  MQ_QD(sq[0], MQ_SQ_DEPTH, rq[0], MQ_RQ_DEPTH, qrec[0]), EINVAL,
		  "mapped CREATE_QP on a CQ that is not mapped is EINVAL");
	MQ_QP_BAD(cq.core.cq_handle, ((struct vroce_create_qp){ 0 }), EINVAL,
		  "CREATE_QP not mapped on a mapped CQ is EINVAL");
	MQ_QP_BAD(cq.core.cq_handle,
		  MQ_QD(sq[0], MQ_SQ_DEPTH, sq[0], MQ_RQ_DEPTH, qrec[0]), EINVAL,
		  "mapped CREATE_QP whose RQ overlaps its SQ is EINVAL");
	MQ_QP_BAD(cq.core.cq_handle,
		  MQ_QD(sq[0], 48, rq[0], MQ_RQ_DEPTH, qrec[0]), EINVAL,
		  "mapped CREATE_QP of SQ depth 48 (not a power of two) is EINVAL");
	MQ_QP_BAD(cq.core.cq_handle,
		  MQ_QD(sq[0], 8192, rq[0], MQ_RQ_DEPTH, qrec[0]), EINVAL,
		  "mapped CREATE_QP of SQ depth 8192 (the HCA's most is 4096) is EINVAL");
	MQ_QP_BAD(cq.core.cq_handle,
		  MQ_QD(sq[0], MQ_SQ_DEPTH, 0, 0, qrec[0]), EINVAL,
		  "mapped CREATE_QP with no RQ and no SRQ is EINVAL");
	MQ_QP_BAD(cq.core.cq_handle,
		  MQ_QD(sq[0], MQ_SQ_DEPTH, ro, MQ_RQ_DEPTH, qrec[0]), EFAULT,
		  "mapped CREATE_QP of a read-only RQ is EFAULT");
	MQ_QP_BAD(cq.core.cq_handle,
		  MQ_QD(sq[0], MQ_SQ_DEPTH, rq[0], MQ_RQ_DEPTH,
			(unsigned char *)qrec[0] + 2), EINVAL,
		  "mapped CREATE_QP of a record not 8-byte aligned is EINVAL");

	qd = MQ_QD(sq[0], MQ_SQ_DEPTH, rq[0], MQ_RQ_DEPTH, qrec[0]);
	for (n = 1, bad_err = 0; n < 100; n++) {
		snprintf(num, sizeof(num), "%d", n);
		if (write_line(nth, num))
			break;
		err = mq_create_qp(fd, pd, cq.core.cq_handle, &qd, &qbad);
		if (!err) {
			uq_destroy_qp(fd, qbad.core.qp_handle);
			break;
		}
		if (err != -ENOMEM)
			bad_err++;
	}
	write_line(nth, "0");
	snprintf(msg, sizeof(msg),
		 "mapped CREATE_QP: %d injection points failed in turn, each ENOMEM",
		 n - 1);
	check(n > 2 && n < 100 && !bad_err, msg);
	/* QP_DBREC (opcode 22) refused, then lost: the QP is undone. */
	snprintf(knob, sizeof(knob), "%s/fault_opcode", hca);
	snprintf(knob2, sizeof(knob2), "%s/fail_cmds", hca);
	if (!write_line(knob, "22") && !write_line(knob2, "1")) {
		err = mq_create_qp(fd, pd, cq.core.cq_handle, &qd, &qbad);
		check(err == -EIO,
		      "mapped CREATE_QP whose QP_DBREC the HCA fails (INTERNAL) is EIO");
		if (!err)
			uq_destroy_qp(fd, qbad.core.qp_handle);
		snprintf(knob2, sizeof(knob2), "%s/drop_cmds", hca);
		write_line(knob2, "1");
		err = mq_create_qp(fd, pd, cq.core.cq_handle, &qd, &qbad);
		check(err == -ETIMEDOUT,
		      "mapped CREATE_QP whose QP_DBREC is lost is ETIMEDOUT");
		if (!err)
			uq_destroy_qp(fd, qbad.core.qp_handle);
	} else {
		check(0, "set the HCA's fault knobs for QP_DBREC");
	}
	write_line(knob, "0");

	for (i = 0; i < 2; i++) {
		qd = MQ_QD(sq[i], MQ_SQ_DEPTH, rq[i], MQ_RQ_DEPTH, qrec[i]);
		err = mq_create_qp(fd, pd, cq.core.cq_handle, &qd, &qp[i]);
		check(!err && (qp[i].drv.comp_mask & VROCE_CREATE_QP_MAPPED) &&
		      qp[i].drv.sq_depth == MQ_SQ_DEPTH &&
		      qp[i].drv.rq_depth == MQ_RQ_DEPTH,
		      i ? "mapped CREATE_QP of RC QP 1" :
			  "mapped CREATE_QP of RC QP 0");
		if (err)
			goto out;
		nqp++;
	}
	if (uq_gid0(ibdev, gid)) {
		check(0, "read the port's GID 0");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		err = uq_connect(fd, qp[i].core.qp_handle, qp[!i].core.qpn, gid);
		check(!err, i ? "MODIFY_QP of mapped QP 1 to RTS" :
				"MODIFY_QP of mapped QP 0 to RTS");
		if (err)
			goto out;
	}
	{
		struct ib_uverbs_reg_mr c = {
			.response = (uintptr_t)&mr,
			.start = (uintptr_t)dst, .length = MQ_PAGE,
			.hca_va = (uintptr_t)dst, .pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
			     sizeof(mr), "REG_MR (mapped)");
		check(!err, "REG_MR of the mapped QPs' receive buffer");
		if (err)
			goto out;
		have_mr = 1;
	}

	/* What the kernel can no longer do for a mapped QP. */
	{
		struct ib_uverbs_sge s = { .addr = (uintptr_t)dst, .length = 8,
					   .lkey = mr.lkey };

		err = uq_post_recv(fd, qp[1].core.qp_handle, &s, 1);
		check(err == -EOPNOTSUPP, "POST_RECV on a mapped QP is EOPNOTSUPP");
		s = (struct ib_uverbs_sge){ .addr = src_iova, .length = 8,
					    .lkey = src_lkey };
		err = uq_post_send(fd, qp[0].core.qp_handle, IB_UVERBS_WR_SEND,
				   SEND_SIGNALED, &s, 1, 0, 0, 1);
		check(err == -EOPNOTSUPP,
		      "POST_SEND with a work request on a mapped QP is EOPNOTSUPP");
	}

	/* A SEND of 100 bytes through the rings: one system call. */
	{
		struct mq_recv_wqe *r = (struct mq_recv_wqe *)rq[1];
		struct mq_send_wqe *s = (struct mq_send_wqe *)sq[0];
		int got = 0, ok = 1;

		memset(dst, 0, 128);
		r->wr_id = 0x1111;
		r->num_sge = 1;
		r->sge[0] = (struct mq_sge){ .addr = (uintptr_t)dst,
					     .length = 128, .lkey = mr.lkey };
		__atomic_store_n(&qrec[1]->rq_pi, 1, __ATOMIC_RELEASE);
		s->wr_id = 0x2222;
		s->opcode = MQ_WQE_SEND;
		s->flags = MQ_WQE_F_SIGNALED;
		s->num_sge = 1;
		s->sge[0] = (struct mq_sge){ .addr = src_iova + 10,
					     .length = 100, .lkey = src_lkey };
		__atomic_store_n(&qrec[0]->sq_pi, 1, __ATOMIC_RELEASE);
		mq_post_send_none(fd, qp[0].core.qp_handle, &err);
		check(!err, "POST_SEND with no work request on a mapped QP (the doorbell)");
		while (got < 2 && (cqe = mq_cqe((struct mq_cqe *)cq_ring, 6, ci, 3000))) {
			ok = ok && !cqe->status &&
			     (cqe->wr_id == 0x1111 ? cqe->byte_len == 100 &&
			      cqe->qpn == qp[1].core.qpn :
			      cqe->wr_id == 0x2222 && cqe->qpn == qp[0].core.qpn &&
			      cqe->wqe_idx == 0);
			got++;
			ci++;
		}
		__atomic_store_n(&crec->ci, ci, __ATOMIC_RELEASE);
		check(got == 2 && ok && !memcmp(dst, src + 10, 100),
		      "mapped QPs: SEND 100 B, both CQEs read from the ring, bytes match");
	}

	/*
	 * A process's LOCAL_INV (and REG_MR): the HCA refuses them on a
	 * mapped QP, as the kernel's post_send does on a user QP (an MR of
	 * the MR cache is a fast-register entry of this PD, which REG_MR
	 * could otherwise point at any page once invalidated). This check
	 * also passes with that refusal disabled: the MR here fails
	 * LOCAL_INV on its own, so it does not prove the refusal.
	 */
	qd = MQ_QD(sq[2], MQ_SQ_DEPTH, rq[2], MQ_RQ_DEPTH, qrec[2]);
	err = mq_create_qp(fd, pd, cq.core.cq_handle, &qd, &qp[2]);
	if (!err)
		nqp++;
	if (!err)
		err = uq_connect(fd, qp[2].core.qp_handle, qp[1].core.qpn, gid);
	if (!err) {
		struct mq_send_wqe *s = (struct mq_send_wqe *)sq[2];

		s->wr_id = 0x5555;
		s->opcode = 7;	/* VROCE_WQE_LOCAL_INV */
		s->flags = MQ_WQE_F_SIGNALED;
		s->imm_inv = mr.lkey;
		__atomic_store_n(&qrec[2]->sq_pi, 1, __ATOMIC_RELEASE);
		mq_post_send_none(fd, qp[2].core.qp_handle, &err);
		cqe = err ? NULL : mq_cqe((struct mq_cqe *)cq_ring, 6, ci, 3000);
		check(cqe && cqe->wr_id == 0x5555 && cqe->status == 2,
		      "mapped QP: LOCAL_INV of its own MR completes with LOC_QP_OP_ERR");
		if (cqe)
			__atomic_store_n(&crec->ci, ++ci, __ATOMIC_RELEASE);
	} else {
		check(0, "mapped QP 2 for LOCAL_INV");
	}

	/* Garbage in a record while the QPs live: that QP fails, counted. */
	before = mq_counter(ibdev, "dbrec_err");
	__atomic_store_n(&qrec[0]->sq_pi, 1 + 5000, __ATOMIC_RELEASE);
	mq_post_send_none(fd, qp[0].core.qp_handle, &err);
	usleep(100 * 1000);
	check(!err && before >= 0 && mq_counter(ibdev, "dbrec_err") == before + 1,
	      "mapped QP: sq_pi 5000 past the ring counts 1 dbrec_err");
	check(mq_qp_state(fd, qp[0].core.qp_handle) == 6 /* ERR */,
	      "mapped QP: sq_pi 5000 past the ring moves that QP to ERR");
	check(mq_qp_state(fd, qp[1].core.qp_handle) == QPS_RTS,
	      "mapped QP: a broken record leaves the other QP in RTS");
	/*
	 * Review of issue 31: a receive posted (by the record alone, no
	 * system call) to a QP the HCA failed on its own, with nothing it
	 * could complete, is flushed all the same (the HCA watches the
	 * record of a mapped QP in ERR); the process need not know the QP
	 * failed.
	 */
	{
		struct mq_recv_wqe *r = (struct mq_recv_wqe *)rq[0];

		memset(r, 0, sizeof(*r));
		r->wr_id = 0x6666;
		r->num_sge = 1;
		r->sge[0] = (struct mq_sge){ .addr = (uintptr_t)dst,
					     .length = 8, .lkey = mr.lkey };
		__atomic_store_n(&qrec[0]->rq_pi, 1, __ATOMIC_RELEASE);
		cqe = mq_cqe((struct mq_cqe *)cq_ring, 6, ci, 3000);
		check(cqe && cqe->wr_id == 0x6666 && cqe->status == 4 &&
		      cqe->qpn == qp[0].core.qpn,
		      "mapped QP failed by the HCA: a receive posted after, without a doorbell, is flushed (WR_FLUSH_ERR)");
		if (cqe)
			__atomic_store_n(&crec->ci, ++ci, __ATOMIC_RELEASE);
	}
	/* A consumer index ahead of the CQ's producer: the CQ fails. */
	before = mq_counter(ibdev, "dbrec_err");
	__atomic_store_n(&crec->ci, ci + 1000, __ATOMIC_RELEASE);
	{
		struct mq_recv_wqe *r = (struct mq_recv_wqe *)rq[0];
		struct mq_send_wqe *s = (struct mq_send_wqe *)sq[1];

		/* QP 1 sends to QP 0, in ERR: its CQE (an error) is lost. */
		r->wr_id = 0x3333;
		r->num_sge = 1;
		r->sge[0] = (struct mq_sge){ .addr = (uintptr_t)dst,
					     .length = 128, .lkey = mr.lkey };
		__atomic_store_n(&qrec[0]->rq_pi, 1, __ATOMIC_RELEASE);
		memset(s, 0, sizeof(*s));
		s->wr_id = 0x4444;
		s->flags = MQ_WQE_F_SIGNALED;
		s->num_sge = 1;
		s->sge[0] = (struct mq_sge){ .addr = src_iova, .length = 8,
					     .lkey = src_lkey };
		__atomic_store_n(&qrec[1]->sq_pi, 1, __ATOMIC_RELEASE);
		mq_post_send_none(fd, qp[1].core.qp_handle, &err);
	}
	/* Its CQE comes once the requester gives up on QP 0 (retries). */
	deadline = uq_now_ms() + 5000;
	while (mq_counter(ibdev, "dbrec_err") <= before &&
	       uq_now_ms() < deadline)
		usleep(10 * 1000);
	check(!err && mq_counter(ibdev, "dbrec_err") > before,
	      "mapped CQ: a consumer index past the producer counts dbrec_err");
	check(!mq_cqe((struct mq_cqe *)cq_ring, 6, ci, 0),
	      "mapped CQ: with a broken record the HCA writes no CQE");

out:
	while (nqp--)
		uq_destroy_qp(fd, qp[nqp].core.qp_handle);
	if (have_mr) {
		struct ib_uverbs_dereg_mr d = { .mr_handle = mr.mr_handle };

		check(!uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &d, sizeof(d), 0,
			      "DEREG_MR"), "DEREG_MR of the mapped QPs' buffer");
	}
	if (have_plain)
		uq_destroy_cq(fd, plain.core.cq_handle);
	if (have_cq)
		uq_destroy_cq(fd, cq.core.cq_handle);
	(void)src;
}

/* ---- issue 31: the ring fuzzer over mapped rings and records ---- */

static __u64 mf_rng;

static __u32 mf_rand(void)
{
	mf_rng ^= mf_rng << 13;
	mf_rng ^= mf_rng >> 7;
	mf_rng ^= mf_rng << 17;
	return (__u32)(mf_rng >> 11);
}

/* A mapped RC pair on its own mapped CQ, and the memory behind it. */
struct mf_pair {
	unsigned char *sq[2], *rq[2], *cq, *recs;
	struct vroce_qp_dbrec *qrec[2];
	struct vroce_cq_dbrec *crec;
	struct uq_cq_resp cqr;
	struct uq_qp_resp qp[2];
	__u32 sq_pi[2], rq_pi[2], ci;
	int live;
};

static void mf_destroy(int fd, struct mf_pair *m)
{
	struct ib_uverbs_destroy_qp_resp qr;
	struct ib_uverbs_destroy_cq_resp cr;
	struct ib_uverbs_destroy_qp dq = { .response = (uintptr_t)&qr };
	struct ib_uverbs_destroy_cq dc = { .response = (uintptr_t)&cr };
	int i;

	if (!m->live)
		return;
	for (i = 0; i < 2; i++) {
		dq.qp_handle = m->qp[i].core.qp_handle;
		uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq),
		       sizeof(qr), "DESTROY_QP (fuzz)");
	}
	dc.cq_handle = m->cqr.core.cq_handle;
	uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc), sizeof(cr),
	       "DESTROY_CQ (fuzz)");
	m->live = 0;
}

/* (Re)make the pair over zeroed rings and records, connected, in RTS. */
static int mf_make(int fd, __u32 pd, const __u8 gid[16], struct mf_pair *m)
{
	struct vroce_create_qp qd;
	int i, err;

	mf_destroy(fd, m);
	memset(m->cq, 0, MQ_PAGE);
	memset(m->recs, 0, MQ_PAGE);
	for (i = 0; i < 2; i++) {
		memset(m->sq[i], 0, MQ_PAGE);
		memset(m->rq[i], 0, MQ_PAGE);
		m->sq_pi[i] = 0;
		m->rq_pi[i] = 0;
	}
	m->ci = 0;
	m->crec = (struct vroce_cq_dbrec *)m->recs;
	m->qrec[0] = (struct vroce_qp_dbrec *)(m->recs + 64);
	m->qrec[1] = (struct vroce_qp_dbrec *)(m->recs + 128);
	err = mq_create_cq(fd, MQ_CQ_DEPTH - 1, VROCE_CREATE_CQ_MAPPED,
			   (uintptr_t)m->cq, (uintptr_t)m->crec, MQ_CQ_DEPTH,
			   &m->cqr);
	if (err)
		return err;
	for (i = 0; i < 2; i++) {
		qd = MQ_QD(m->sq[i], MQ_SQ_DEPTH, m->rq[i], MQ_RQ_DEPTH,
			   m->qrec[i]);
		err = mq_create_qp(fd, pd, m->cqr.core.cq_handle, &qd,
				   &m->qp[i]);
		if (err) {
			struct ib_uverbs_destroy_qp_resp qr;
			struct ib_uverbs_destroy_qp dq = {
				.response = (uintptr_t)&qr,
				.qp_handle = m->qp[0].core.qp_handle,
			};
			struct ib_uverbs_destroy_cq_resp cr;
			struct ib_uverbs_destroy_cq dc = {
				.response = (uintptr_t)&cr,
				.cq_handle = m->cqr.core.cq_handle,
			};

			if (i)
				uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				       sizeof(dq), sizeof(qr), "DESTROY_QP");
			uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &dc,
			       sizeof(dc), sizeof(cr), "DESTROY_CQ");
			return err;
		}
	}
	m->live = 1;
	for (i = 0; i < 2; i++) {
		err = uq_connect(fd, m->qp[i].core.qp_handle,
				 m->qp[!i].core.qpn, gid);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A SEND of @len bytes of @src from QP 0 to a receive of QP 1 at @dst,
 * through the rings; the doorbell. With @check_it the two CQEs are read
 * (3 s) and the bytes compared: 0 when all is well.
 */
static int mf_send(int fd, struct mf_pair *m, __u32 src_lkey, __u64 src_iova,
		   __u32 dst_lkey, void *dst, __u32 len, __u64 wr_id,
		   int check_it)
{
	struct mq_recv_wqe *r = (struct mq_recv_wqe *)m->rq[1] +
				(m->rq_pi[1] & (MQ_RQ_DEPTH - 1));
	struct mq_send_wqe *w = (struct mq_send_wqe *)m->sq[0] +
				(m->sq_pi[0] & (MQ_SQ_DEPTH - 1));
	struct mq_cqe *cqe;
	int err, got = 0, bad = 0;

	memset(r, 0, sizeof(*r));
	r->wr_id = wr_id;
	r->num_sge = 1;
	r->sge[0] = (struct mq_sge){ .addr = (uintptr_t)dst, .length = MQ_PAGE,
				     .lkey = dst_lkey };
	__atomic_store_n(&m->qrec[1]->rq_pi, ++m->rq_pi[1], __ATOMIC_RELEASE);
	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = MQ_WQE_SEND;
	w->flags = MQ_WQE_F_SIGNALED;
	w->num_sge = 1;
	w->sge[0] = (struct mq_sge){ .addr = src_iova, .length = len,
				     .lkey = src_lkey };
	__atomic_store_n(&m->qrec[0]->sq_pi, ++m->sq_pi[0], __ATOMIC_RELEASE);
	mq_post_send_none(fd, m->qp[0].core.qp_handle, &err);
	if (err || !check_it)
		return err;
	while (got < 2 && (cqe = mq_cqe((struct mq_cqe *)m->cq, 6, m->ci,
					3000))) {
		bad |= cqe->status || cqe->wr_id != wr_id;
		got++;
		m->ci++;
	}
	__atomic_store_n(&m->crec->ci, m->ci, __ATOMIC_RELEASE);
	return got == 2 && !bad ? 0 : -1;
}

/* The page at @p holds @seed's pattern: 0, or -1. */
static int mf_pattern(const unsigned char *p, __u8 seed, int fill)
{
	int i;

	for (i = 0; i < MQ_PAGE; i++) {
		if (fill)
			((unsigned char *)p)[i] = (unsigned char)(i * 13 + seed);
		else if (p[i] != (unsigned char)(i * 13 + seed))
			return -1;
	}
	return 0;
}

/*
 * The ring fuzzer of issue 31 over a process's own rings: for
 * VROCE_UVERBS_FUZZ_MS (default 3000) ms, seeded (VROCE_UVERBS_FUZZ_SEED,
 * else the clock; printed), a fuzzed pair of mapped RC QPs on its own
 * mapped CQ gets random bytes in random slots of its SQ, RQ and CQ rings
 * and random values in its doorbell records, some aimed (a SEND's SGE or
 * a WRITE's remote address at the guard pages around its receive MR,
 * or at a page no MR covers), between SENDs of its own; once its QPs fail
 * the pair is made again. A bystander pair on another mapped CQ of the
 * same PD moves a SEND at every step and checks its bytes. Asserted: the
 * bystander never fails; the guard pages and the uncovered page keep
 * their bytes; the fuzz reached the HCA's checks (dbrec_err or
 * unpriv_wqe_refused grew).
 */
static void user_mapped_fuzz(int fd, const char *ibdev, __u32 pd,
			     __u32 src_lkey, __u64 src_iova)
{
	const char *ms_env = getenv("VROCE_UVERBS_FUZZ_MS");
	const char *seed_env = getenv("VROCE_UVERBS_FUZZ_SEED");
	long long ms = ms_env ? atoll(ms_env) : 3000, end;
	struct mf_pair fz = { 0 }, by = { 0 };
	struct mf_pair *all[2] = { &fz, &by };
	unsigned char *win, *canary, *bdst;
	struct ib_uverbs_reg_mr_resp mr = { 0 }, bmr = { 0 };
	long long before, after;
	unsigned long steps = 0, remade = 0, by_fail = 0;
	__u64 seed;
	__u8 gid[16];
	int i, k, err;
	char msg[200];

	seed = seed_env ? strtoull(seed_env, NULL, 0) :
			  (__u64)uq_now_ms() * 2654435761u;
	mf_rng = seed | 1;
	printf("# uverbs: mapped ring fuzz: seed 0x%llx (replay: VROCE_UVERBS_FUZZ_SEED=0x%llx)\n",
	       (unsigned long long)seed, (unsigned long long)seed);
	win = mq_pages(3, PROT_READ | PROT_WRITE);	/* guard, MR, guard */
	canary = mq_pages(1, PROT_READ | PROT_WRITE);
	bdst = mq_pages(1, PROT_READ | PROT_WRITE);
	for (k = 0; k < 2; k++) {
		struct mf_pair *m = all[k];

		m->cq = mq_pages(1, PROT_READ | PROT_WRITE);
		m->recs = mq_pages(1, PROT_READ | PROT_WRITE);
		for (i = 0; i < 2; i++) {
			m->sq[i] = mq_pages(1, PROT_READ | PROT_WRITE);
			m->rq[i] = mq_pages(1, PROT_READ | PROT_WRITE);
		}
		if (!m->cq || !m->recs || !m->sq[0] || !m->sq[1] ||
		    !m->rq[0] || !m->rq[1])
			win = NULL;
	}
	if (!win || !canary || !bdst || uq_gid0(ibdev, gid)) {
		check(0, "mapped ring fuzz: memory and the GID");
		return;
	}
	mf_pattern(win, 0x21, 1);
	mf_pattern(win + 2 * MQ_PAGE, 0x23, 1);
	mf_pattern(canary, 0x25, 1);
	{
		struct ib_uverbs_reg_mr c = {
			.response = (uintptr_t)&mr,
			.start = (uintptr_t)win + MQ_PAGE, .length = MQ_PAGE,
			.hca_va = (uintptr_t)win + MQ_PAGE, .pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE |
					IB_UVERBS_ACCESS_REMOTE_WRITE,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
			     sizeof(mr), "REG_MR (fuzz)");
		c.response = (uintptr_t)&bmr;
		c.start = (uintptr_t)bdst;
		c.hca_va = c.start;
		c.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE;
		if (!err)
			err = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c,
				     sizeof(c), sizeof(bmr), "REG_MR (fuzz)");
	}
	if (err || mf_make(fd, pd, gid, &fz) || mf_make(fd, pd, gid, &by)) {
		check(0, "mapped ring fuzz: the MRs and both pairs");
		goto out;
	}
	before = mq_counter(ibdev, "dbrec_err") +
		 mq_counter(ibdev, "unpriv_wqe_refused");
	end = uq_now_ms() + ms;
	while (uq_now_ms() < end) {
		__u32 r = mf_rand(), n;

		/* Random bytes into the fuzzed pair's rings and records. */
		for (n = 0; n < 1 + r % 4; n++) {
			__u32 w = mf_rand(), v = mf_rand();
			unsigned char *ring;

			switch (w % 6) {
			case 0: case 1:
				ring = fz.sq[w >> 3 & 1];
				break;
			case 2:
				ring = fz.rq[w >> 3 & 1];
				break;
			case 3:
				ring = fz.cq;
				break;
			default:
				ring = fz.recs;
				break;
			}
			if (ring == fz.recs) {
				/* A record field: an index or the arm word. */
				((__u32 *)ring)[(w >> 4) % 48] = v % 3 ? v :
					v % 70;
			} else if (w & 0x100) {
				for (i = 0; i < 64; i++)
					ring[(w >> 9) % (MQ_PAGE - 64) + i] =
						(unsigned char)mf_rand();
			} else {
				ring[(w >> 9) % MQ_PAGE] = (unsigned char)v;
			}
			if (ring == fz.sq[0] && (v & 3) == 0) {
				/* Aim a slot at memory no MR of it covers. */
				struct mq_send_wqe *sw = (struct mq_send_wqe *)
					ring + (w >> 12) % MQ_SQ_DEPTH;
				__u64 at = (v >> 2) & 1 ? (uintptr_t)canary :
					   (uintptr_t)win + MQ_PAGE - 8;

				if ((v >> 3) & 1) {
					sw->opcode = 3;	/* VROCE_WQE_WRITE */
					sw->rkey = mr.rkey;
					sw->remote_addr = at;
				} else {
					sw->sge[0].lkey = mr.lkey;
					sw->sge[0].addr = at;
				}
			}
		}
		/* A SEND of the fuzzed pair, unchecked, and its doorbell. */
		mf_send(fd, &fz, src_lkey, src_iova, mr.lkey, win + MQ_PAGE,
			1 + r % 512, steps, 0);
		if ((r & 7) == 0)
			__atomic_store_n(&fz.crec->ci, fz.ci += (r >> 3) % 8,
					 __ATOMIC_RELEASE);
		/* The bystander moves and checks. */
		memset(bdst, 0, 600);
		if (mf_send(fd, &by, src_lkey, src_iova, bmr.lkey, bdst,
			    1 + (r >> 9) % 512, steps, 1) ||
		    memcmp(bdst, (void *)(uintptr_t)src_iova, 1 + (r >> 9) % 512))
			by_fail++;
		/* Now and then, or once failed, the fuzzed pair anew. */
		if ((r >> 20) % 64 == 0 ||
		    mq_qp_state(fd, fz.qp[0].core.qp_handle) == 6 ||
		    mq_qp_state(fd, fz.qp[1].core.qp_handle) == 6) {
			if (mf_make(fd, pd, gid, &fz)) {
				check(0, "mapped ring fuzz: make the pair again");
				break;
			}
			remade++;
		}
		steps++;
	}
	after = mq_counter(ibdev, "dbrec_err") +
		mq_counter(ibdev, "unpriv_wqe_refused");
	mf_destroy(fd, &fz);
	printf("# uverbs: mapped ring fuzz: %lu steps, %lu remade, %lld refusals counted\n",
	       steps, remade, after - before);
	snprintf(msg, sizeof(msg),
		 "mapped ring fuzz: the bystander pair moved and checked %lu SENDs, none failed",
		 steps);
	check(steps > 10 && !by_fail, msg);
	check(!mf_pattern(win, 0x21, 0) && !mf_pattern(win + 2 * MQ_PAGE, 0x23, 0),
	      "mapped ring fuzz: the guard pages around the fuzzed MR are untouched");
	check(!mf_pattern(canary, 0x25, 0),
	      "mapped ring fuzz: a page no MR covers is untouched");
	check(after > before,
	      "mapped ring fuzz: the HCA refused and counted (dbrec_err, unpriv_wqe_refused)");
out:
	mf_destroy(fd, &fz);
	mf_destroy(fd, &by);
	for (k = 0; k < 2 && mr.mr_handle; k++) {
		struct ib_uverbs_dereg_mr d = {
			.mr_handle = k ? bmr.mr_handle : mr.mr_handle,
		};

		if (d.mr_handle)
			uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &d, sizeof(d), 0,
			       "DEREG_MR (fuzz)");
	}
}

/*
 * Review of issue 31 (i31-review): inputs that break the mapped rings.
 * Each check names the finding; a failing check is the finding shown.
 */
static int mq_modify_state(int fd, __u32 handle, __u32 state)
{
	struct ib_uverbs_modify_qp c = {
		.qp_handle = handle, .attr_mask = QP_STATE, .qp_state = state,
	};

	return uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), 0,
		      "MODIFY_QP (review)");
}

static void user_mapped_review(int fd, const char *ibdev, const char *hca,
			       __u32 pd, __u32 src_lkey, __u64 src_iova)
{
	unsigned char *cqa, *cqb, *cqc, *recs, *sq[3], *rq[3], *dst;
	struct vroce_cq_dbrec *reca, *recb, *recc;
	struct vroce_qp_dbrec *qrec[3];
	struct uq_cq_resp ca, cb, cc;
	struct uq_qp_resp q[3];
	struct vroce_create_qp qd;
	struct ib_uverbs_reg_mr_resp mr = { 0 };
	struct mq_cqe *cqe;
	char knob[700];
	__u8 gid[16];
	int err, i, have_a = 0, have_c = 0, have_q0 = 0, have_q2 = 0;
	int have_mr = 0;

	cqa = mq_pages(1, PROT_READ | PROT_WRITE);
	cqb = mq_pages(1, PROT_READ | PROT_WRITE);
	cqc = mq_pages(1, PROT_READ | PROT_WRITE);
	recs = mq_pages(1, PROT_READ | PROT_WRITE);
	dst = mq_pages(1, PROT_READ | PROT_WRITE);
	for (i = 0; i < 3; i++) {
		sq[i] = mq_pages(1, PROT_READ | PROT_WRITE);
		rq[i] = mq_pages(1, PROT_READ | PROT_WRITE);
		if (!sq[i] || !rq[i]) {
			check(0, "review: allocate the rings");
			return;
		}
	}
	if (!cqa || !cqb || !cqc || !recs || !dst || uq_gid0(ibdev, gid)) {
		check(0, "review: allocate the rings");
		return;
	}
	reca = (struct vroce_cq_dbrec *)recs;
	recb = (struct vroce_cq_dbrec *)(recs + 8);
	recc = (struct vroce_cq_dbrec *)(recs + 16);
	for (i = 0; i < 3; i++)
		qrec[i] = (struct vroce_qp_dbrec *)(recs + 64 + 8 * i);
	{
		struct ib_uverbs_reg_mr c = {
			.response = (uintptr_t)&mr,
			.start = (uintptr_t)dst, .length = MQ_PAGE,
			.hca_va = (uintptr_t)dst, .pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
			     sizeof(mr), "REG_MR (review)");
		if (err)
			goto out;
		have_mr = 1;
	}

	/*
	 * Finding: a receive posted to a mapped QP in ERR was never flushed.
	 * Receives are posted with no system call; the HCA flushes an RQ only
	 * when the QP's work runs (a send doorbell, an error, MODIFY_QP), so
	 * once the QP is in ERR and flushed, a new receive waited for ever
	 * (IBTA: work posted in ERR completes with a flush error; a drain of
	 * the RQ hangs). The provider now rings the send doorbell after such
	 * a post (userspace.rst); this program does as it does.
	 */
	err = mq_create_cq(fd, 16, VROCE_CREATE_CQ_MAPPED, (uintptr_t)cqa,
			   (uintptr_t)reca, MQ_CQ_DEPTH, &ca);
	if (err)
		goto out;
	have_a = 1;
	qd = MQ_QD(sq[0], MQ_SQ_DEPTH, rq[0], MQ_RQ_DEPTH, qrec[0]);
	err = mq_create_qp(fd, pd, ca.core.cq_handle, &qd, &q[0]);
	if (err)
		goto out;
	have_q0 = 1;
	err = uq_connect(fd, q[0].core.qp_handle, q[0].core.qpn, gid);
	if (!err)
		err = mq_modify_state(fd, q[0].core.qp_handle, 6 /* ERR */);
	check(!err, "review: a mapped QP to RTS, then to ERR");
	if (err)
		goto out;
	usleep(100 * 1000);
	{
		struct mq_recv_wqe *r = (struct mq_recv_wqe *)rq[0];

		r->wr_id = 0xa1;
		r->num_sge = 1;
		r->sge[0] = (struct mq_sge){ .addr = (uintptr_t)dst,
					     .length = 64, .lkey = mr.lkey };
		__atomic_store_n(&qrec[0]->rq_pi, 1, __ATOMIC_RELEASE);
	}
	cqe = mq_cqe((struct mq_cqe *)cqa, 6, 0, 500);
	if (!cqe)
		printf("# review: a receive posted in ERR: no flush without %s\n",
		       "a doorbell (the HCA does not watch the record)");
	else
		mq_post_send_none(fd, q[0].core.qp_handle, &err);
	if (!cqe) {
		mq_post_send_none(fd, q[0].core.qp_handle, &err);
		cqe = mq_cqe((struct mq_cqe *)cqa, 6, 0, 1000);
	}
	check(!err && cqe && cqe->wr_id == 0xa1 && cqe->status == 4,
	      "review: a receive posted to a mapped QP in ERR, then the send doorbell: WR_FLUSH_ERR");
	__atomic_store_n(&reca->ci, 1, __ATOMIC_RELEASE);

	/*
	 * Finding: a destroy the HCA did not confirm returns success, and the
	 * provider then frees (or reuses) the rings and record, which stay
	 * pinned but still mapped in the process: the HCA goes on writing
	 * CQEs (and SRQ marks, resized copies) into memory the process's
	 * allocator has handed out again. A slow HCA (a timeout, not a dead
	 * device: delay_ms here, or another process keeping the engines and
	 * the wire lock busy) is enough. DESTROY_QP and DESTROY_CQ both time
	 * out and return 0; a SEND from QP 2 then takes QP 1's receive from
	 * its ring and lands its CQE in CQ B's ring.
	 */
	err = mq_create_cq(fd, 16, VROCE_CREATE_CQ_MAPPED, (uintptr_t)cqb,
			   (uintptr_t)recb, MQ_CQ_DEPTH, &cb);
	if (err)
		goto out;
	err = mq_create_cq(fd, 16, VROCE_CREATE_CQ_MAPPED, (uintptr_t)cqc,
			   (uintptr_t)recc, MQ_CQ_DEPTH, &cc);
	if (err) {
		uq_destroy_cq(fd, cb.core.cq_handle);
		goto out;
	}
	have_c = 1;
	qd = MQ_QD(sq[1], MQ_SQ_DEPTH, rq[1], MQ_RQ_DEPTH, qrec[1]);
	err = mq_create_qp(fd, pd, cb.core.cq_handle, &qd, &q[1]);
	if (err) {
		uq_destroy_cq(fd, cb.core.cq_handle);
		goto out;
	}
	qd = MQ_QD(sq[2], MQ_SQ_DEPTH, rq[2], MQ_RQ_DEPTH, qrec[2]);
	err = mq_create_qp(fd, pd, cc.core.cq_handle, &qd, &q[2]);
	if (err) {
		uq_destroy_qp(fd, q[1].core.qp_handle);
		uq_destroy_cq(fd, cb.core.cq_handle);
		goto out;
	}
	have_q2 = 1;
	err = uq_connect(fd, q[1].core.qp_handle, q[2].core.qpn, gid);
	if (!err)
		err = uq_connect(fd, q[2].core.qp_handle, q[1].core.qpn, gid);
	check(!err, "review: mapped QPs 1 and 2 connected");
	{
		struct mq_recv_wqe *r = (struct mq_recv_wqe *)rq[1];

		r->wr_id = 0xb1;
		r->num_sge = 1;
		r->sge[0] = (struct mq_sge){ .addr = (uintptr_t)dst,
					     .length = 64, .lkey = mr.lkey };
		__atomic_store_n(&qrec[1]->rq_pi, 1, __ATOMIC_RELEASE);
	}
	/*
	 * A slow HCA: each command waits delay_ms before it runs, the
	 * engines go on meanwhile. DESTROY_QP and DESTROY_CQ both time out
	 * (cmd_timeout_ms 2000) while the HCA still holds QP 1 and CQ B.
	 */
	snprintf(knob, sizeof(knob), "%s/delay_ms", hca);
	if (write_line(knob, "8000")) {
		check(0, "review: set the HCA's delay_ms knob");
		uq_destroy_qp(fd, q[1].core.qp_handle);
		uq_destroy_cq(fd, cb.core.cq_handle);
		goto out;
	}
	uq_destroy_qp(fd, q[1].core.qp_handle);		/* checks 0 */
	uq_destroy_cq(fd, cb.core.cq_handle);		/* checks 0 */
	write_line(knob, "0");
	/* The process may now free cqb, rq[1], sq[1] and recb. */
	memset(cqb, 0, MQ_PAGE);
	{
		struct mq_send_wqe *s = (struct mq_send_wqe *)sq[2];

		memset(s, 0, sizeof(*s));
		s->wr_id = 0xb2;
		s->opcode = MQ_WQE_SEND;
		s->flags = MQ_WQE_F_SIGNALED;
		s->num_sge = 1;
		s->sge[0] = (struct mq_sge){ .addr = src_iova, .length = 8,
					     .lkey = src_lkey };
		__atomic_store_n(&qrec[2]->sq_pi, 1, __ATOMIC_RELEASE);
		mq_post_send_none(fd, q[2].core.qp_handle, &err);
	}
	cqe = err ? NULL : mq_cqe((struct mq_cqe *)cqc, 6, 0, 3000);
	check(!!cqe, "review: QP 2's SEND to the destroyed QP 1 completes");
	if (cqe)
		__atomic_store_n(&recc->ci, 1, __ATOMIC_RELEASE);
	usleep(100 * 1000);
	cqe = (struct mq_cqe *)cqb;
	check(!cqe->owner && !cqe->wr_id,
	      "review: after DESTROY_QP and DESTROY_CQ returned 0, the HCA writes nothing into their rings");
	if (cqe->owner)
		printf("# review: CQ B's slot 0 after its destroy: wr_id %#llx status %u\n",
		       (unsigned long long)cqe->wr_id, cqe->status);
	/* Let the delayed commands run before the clean-up's. */
	sleep(6);

out:
	if (have_q2)
		uq_destroy_qp(fd, q[2].core.qp_handle);
	if (have_c)
		uq_destroy_cq(fd, cc.core.cq_handle);
	if (have_q0)
		uq_destroy_qp(fd, q[0].core.qp_handle);
	if (have_a)
		uq_destroy_cq(fd, ca.core.cq_handle);
	if (have_mr) {
		struct ib_uverbs_dereg_mr d = { .mr_handle = mr.mr_handle };

		uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &d, sizeof(d), 0,
		       "DEREG_MR (review)");
	}
	if (err)
		check(0, "review: set-up");
}

/* ---- review of issue 31: the source GID of a mapped UD WQE ---- */

#define QPT_UD		4	/* IB_UVERBS_QPT_UD */
#define QP_QKEY		BIT(6)
#define MG_QKEY		0x11111111u
#define MQ_CQE_LOC_QP_OP_ERR 2	/* VROCE_CQE_LOC_QP_OP_ERR */

struct mg_ah_resp {
	struct ib_uverbs_create_ah_resp core;
	struct vroce_create_ah_resp drv;
};

/* A mapped UD QP in RTS (Q_Key MG_QKEY) on @cq. */
static int mg_ud_qp(int fd, __u32 pd, __u32 cq, const struct vroce_create_qp *drv,
		    struct uq_qp_resp *resp)
{
	struct ib_uverbs_create_qp c = {
		.response = (uintptr_t)resp,
		.pd_handle = pd,
		.send_cq_handle = cq,
		.recv_cq_handle = cq,
		.max_send_wr = 8,
		.max_recv_wr = 8,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.qp_type = QPT_UD,
	};
	struct ib_uverbs_modify_qp m = { 0 };
	int err;

	memset(resp, 0, sizeof(*resp));
	err = uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), drv,
			 sizeof(*drv), sizeof(*resp), "CREATE_QP (mapped UD)");
	if (err)
		return err;
	m.qp_handle = resp->core.qp_handle;
	m.attr_mask = QP_STATE | QP_PKEY | QP_PORT | QP_QKEY;
	m.qp_state = QPS_INIT;
	m.port_num = 1;
	m.qkey = MG_QKEY;
	err = uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0,
		     "MODIFY_QP INIT (UD)");
	if (!err)
		err = mq_modify_state(fd, resp->core.qp_handle, QPS_RTR);
	if (!err) {
		memset(&m, 0, sizeof(m));
		m.qp_handle = resp->core.qp_handle;
		m.attr_mask = QP_STATE | QP_SQ_PSN;
		m.qp_state = QPS_RTS;
		err = uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0,
			     "MODIFY_QP RTS (UD)");
	}
	if (err)
		uq_destroy_qp(fd, resp->core.qp_handle);
	return err;
}

/*
 * A process writes its UD WQEs, address vectors included: one with the
 * AV CREATE_AH returned goes (to the QP itself, which has no receive:
 * dropped there, the sender completes); one with a source GID the port
 * does not have is refused, LOC_QP_OP_ERR, the QP to ERR, counted in
 * sgid_refused (the HCA's GID table, SET_GID).
 */
static void user_mapped_gid(int fd, const char *ibdev, __u32 pd,
			    __u32 src_lkey, __u64 src_iova)
{
	unsigned char *cq_ring, *recs, *sq, *rq;
	struct vroce_cq_dbrec *crec;
	struct vroce_qp_dbrec *qrec;
	struct uq_cq_resp cq;
	struct uq_qp_resp qp;
	struct mg_ah_resp ah = { 0 };
	struct vroce_create_qp qd;
	struct mq_send_wqe *s;
	struct mq_cqe *cqe;
	long long refused;
	__u8 gid[16];
	int err, i;

	cq_ring = mq_pages(1, PROT_READ | PROT_WRITE);
	recs = mq_pages(1, PROT_READ | PROT_WRITE);
	sq = mq_pages(1, PROT_READ | PROT_WRITE);
	rq = mq_pages(1, PROT_READ | PROT_WRITE);
	if (!cq_ring || !recs || !sq || !rq || uq_gid0(ibdev, gid)) {
		check(0, "gid: allocate the rings");
		return;
	}
	crec = (struct vroce_cq_dbrec *)recs;
	qrec = (struct vroce_qp_dbrec *)(recs + 64);
	if (mq_create_cq(fd, 16, VROCE_CREATE_CQ_MAPPED, (uintptr_t)cq_ring,
			 (uintptr_t)crec, MQ_CQ_DEPTH, &cq)) {
		check(0, "gid: a mapped CQ");
		return;
	}
	qd = MQ_QD(sq, MQ_SQ_DEPTH, rq, MQ_RQ_DEPTH, qrec);
	err = mg_ud_qp(fd, pd, cq.core.cq_handle, &qd, &qp);
	check(!err, "gid: a mapped UD QP in RTS");
	if (err)
		goto out_cq;
	{
		struct ib_uverbs_create_ah c = {
			.response = (uintptr_t)&ah, .pd_handle = pd,
			.attr = { .is_global = 1, .port_num = 1,
				  .grh = { .hop_limit = 64 } },
		};

		memcpy(c.attr.grh.dgid, gid, 16);
		err = uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c),
			     sizeof(ah), "CREATE_AH");
	}
	check(!err && (ah.drv.comp_mask & VROCE_CREATE_AH_AV) &&
	      !memcmp(ah.drv.av + 16, gid, 16),
	      "gid: CREATE_AH returns the address vector with the port's GID 0");
	if (err)
		goto out_qp;
	refused = mq_counter(ibdev, "sgid_refused");
	for (i = 0; i < 3; i++) {
		s = (struct mq_send_wqe *)(sq + i * sizeof(*s));
		memset(s, 0, sizeof(*s));
		s->wr_id = 0x61d0 + i;
		s->opcode = MQ_WQE_SEND;
		s->flags = MQ_WQE_F_SIGNALED;
		s->num_sge = 1;
		s->sge[0] = (struct mq_sge){ .addr = src_iova, .length = 16,
					     .lkey = src_lkey };
		memcpy(s->av, ah.drv.av, sizeof(s->av));
		memcpy(s->av + 44, &qp.core.qpn, 4);	/* dest_qpn */
		memcpy(s->av + 48, &(__u32){ MG_QKEY }, 4);	/* qkey */
		if (i == 1)	/* a source address of another host's */
			s->av[31] ^= 0x5a;
		__atomic_store_n(&qrec->sq_pi, i + 1, __ATOMIC_RELEASE);
		mq_post_send_none(fd, qp.core.qp_handle, &err);
		cqe = err ? NULL : mq_cqe((struct mq_cqe *)cq_ring, 6, i, 3000);
		if (!i)
			check(cqe && cqe->wr_id == 0x61d0 && !cqe->status,
			      "gid: a mapped UD SEND with the AV's source GID completes");
		else if (i == 1)
			check(cqe && cqe->wr_id == 0x61d1 &&
			      cqe->status == MQ_CQE_LOC_QP_OP_ERR,
			      "gid: a mapped UD SEND with a forged source GID is LOC_QP_OP_ERR");
		else	/* the HCA's QP is in ERR (QUERY_QP does not know) */
			check(cqe && cqe->wr_id == 0x61d2 &&
			      cqe->status == 4 /* WR_FLUSH_ERR */,
			      "gid: the QP that forged a source GID is in ERR: the next SEND is flushed");
		if (cqe)
			__atomic_store_n(&crec->ci, i + 1, __ATOMIC_RELEASE);
	}
	usleep(100 * 1000);	/* the core caches hw_counters 10 ms */
	check(refused >= 0 && mq_counter(ibdev, "sgid_refused") == refused + 1,
	      "gid: the forged source GID counted in sgid_refused");
	{
		struct ib_uverbs_destroy_ah d = { .ah_handle = ah.core.ah_handle };

		check(!uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_AH, &d, sizeof(d), 0,
			      "DESTROY_AH"), "gid: DESTROY_AH");
	}
out_qp:
	uq_destroy_qp(fd, qp.core.qp_handle);
out_cq:
	uq_destroy_cq(fd, cq.core.cq_handle);
}

/* ---- review of issue 31: a mapped SRQ's limit event ---- */

#define SRQ_LIMIT_ATTR	2	/* IB_SRQ_LIMIT */
#define EV_SRQ_LIMIT	15	/* IB_EVENT_SRQ_LIMIT_REACHED */
#define MS_SRQ_DEPTH	64	/* one page of receive WQEs */
#define MS_HANDLE	0x5a9c

/* The next asynchronous event within @ms, or -1. */
static int ms_event(int afd, int ms, struct ib_uverbs_async_event_desc *ev)
{
	long long deadline = uq_now_ms() + ms;

	for (;;) {
		if (read(afd, ev, sizeof(*ev)) == sizeof(*ev))
			return 0;
		if (uq_now_ms() >= deadline)
			return -1;
		usleep(5000);
	}
}

static int ms_query_limit(int fd, __u32 srq)
{
	struct ib_uverbs_query_srq_resp r = { 0 };
	struct ib_uverbs_query_srq c = {
		.response = (uintptr_t)&r, .srq_handle = srq,
	};

	if (uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_SRQ, &c, sizeof(c), sizeof(r),
		   "QUERY_SRQ"))
		return -1;
	return r.srq_limit;
}

/*
 * A mapped SRQ (receives posted by its record, no system call) under a
 * mapped RC QP connected to itself. 2 posted, one taken (the HCA then
 * took index 2); 5 more posted by the record; the limit armed at 3; takes
 * leaving 5, 4 and 3: no event; the one leaving 2: SRQ_LIMIT_REACHED for
 * the SRQ, and QUERY_SRQ shows the limit disarmed. Each take reads the
 * record (review of issue 31: the limit of a mapped SRQ, whose receives
 * come with no system call, works as a kernel SRQ's).
 */
static void user_mapped_srq(int fd, int afd, const char *ibdev, __u32 pd,
			    __u32 src_lkey, __u64 src_iova)
{
	unsigned char *cq_ring, *recs, *sq, *srq_ring, *dst;
	struct ib_uverbs_reg_mr_resp mr = { 0 };
	struct ib_uverbs_async_event_desc ev;
	struct vroce_srq_dbrec *srec;
	struct vroce_cq_dbrec *crec;
	struct vroce_qp_dbrec *qrec;
	struct uq_srq_resp srq;
	struct uq_cq_resp cq;
	struct uq_qp_resp qp;
	struct vroce_create_qp qd;
	struct mq_recv_wqe *r;
	struct mq_send_wqe *s;
	struct mq_cqe *cqe;
	__u32 posted = 0, sent = 0, polled = 0;
	int err, i, j, ok, early = 0;
	__u8 gid[16];

	cq_ring = mq_pages(1, PROT_READ | PROT_WRITE);
	recs = mq_pages(1, PROT_READ | PROT_WRITE);
	sq = mq_pages(1, PROT_READ | PROT_WRITE);
	srq_ring = mq_pages(1, PROT_READ | PROT_WRITE);
	dst = mq_pages(1, PROT_READ | PROT_WRITE);
	if (!cq_ring || !recs || !sq || !srq_ring || !dst ||
	    uq_gid0(ibdev, gid)) {
		check(0, "srq limit: allocate the rings");
		return;
	}
	crec = (struct vroce_cq_dbrec *)recs;
	qrec = (struct vroce_qp_dbrec *)(recs + 64);
	srec = (struct vroce_srq_dbrec *)(recs + 128);
	for (i = 0; i < MS_SRQ_DEPTH; i++)
		((struct mq_recv_wqe *)srq_ring)[i].srq_done = 1;
	{
		struct ib_uverbs_reg_mr c = {
			.response = (uintptr_t)&mr,
			.start = (uintptr_t)dst, .length = MQ_PAGE,
			.hca_va = (uintptr_t)dst, .pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE,
		};

		if (uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
			   sizeof(mr), "REG_MR (srq limit)")) {
			check(0, "srq limit: REG_MR");
			return;
		}
	}
	if (mq_create_cq(fd, 16, VROCE_CREATE_CQ_MAPPED, (uintptr_t)cq_ring,
			 (uintptr_t)crec, MQ_CQ_DEPTH, &cq)) {
		check(0, "srq limit: a mapped CQ");
		goto out_mr;
	}
	{
		struct ib_uverbs_create_srq c = {
			.response = (uintptr_t)&srq, .user_handle = MS_HANDLE,
			.pd_handle = pd, .max_wr = 16, .max_sge = 1,
		};
		struct vroce_create_srq drv = {
			.comp_mask = VROCE_CREATE_SRQ_MAPPED,
			.buf_addr = (uintptr_t)srq_ring,
			.dbrec_addr = (uintptr_t)srec, .depth = MS_SRQ_DEPTH,
		};

		memset(&srq, 0, sizeof(srq));
		err = uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c),
				 &drv, sizeof(drv), sizeof(srq),
				 "CREATE_SRQ (mapped)");
	}
	check(!err, "srq limit: a mapped SRQ");
	if (err)
		goto out_cq;
	{
		struct ib_uverbs_create_qp c = {
			.response = (uintptr_t)&qp,
			.pd_handle = pd,
			.send_cq_handle = cq.core.cq_handle,
			.recv_cq_handle = cq.core.cq_handle,
			.srq_handle = srq.core.srq_handle,
			.max_send_wr = 8, .max_send_sge = 1,
			.qp_type = QPT_RC, .is_srq = 1,
		};

		qd = MQ_QD(sq, MQ_SQ_DEPTH, 0, 0, qrec);
		memset(&qp, 0, sizeof(qp));
		err = uv_cmd_drv(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c),
				 &qd, sizeof(qd), sizeof(qp),
				 "CREATE_QP (mapped, SRQ)");
	}
	if (!err)
		err = uq_connect(fd, qp.core.qp_handle, qp.core.qpn, gid);
	check(!err, "srq limit: a mapped RC QP on the SRQ, connected to itself");
	if (err)
		goto out_srq;

#define MS_POST(n)							\
	do {								\
		for (i = 0; i < (n); i++, posted++) {			\
			r = &((struct mq_recv_wqe *)srq_ring)[posted %	\
							MS_SRQ_DEPTH];	\
			r->wr_id = 0x5000 + posted;			\
			r->num_sge = 1;					\
			r->sge[0] = (struct mq_sge){			\
				.addr = (uintptr_t)dst, .length = 64,	\
				.lkey = mr.lkey };			\
			r->srq_done = 0;				\
		}							\
		__atomic_store_n(&srec->pi, posted, __ATOMIC_RELEASE);	\
	} while (0)
/* One SEND to itself; its two CQEs (send, receive) polled: ok if both good. */
#define MS_SEND()							\
	do {								\
		s = (struct mq_send_wqe *)(sq + (sent % MQ_SQ_DEPTH) *	\
					   sizeof(*s));			\
		memset(s, 0, sizeof(*s));				\
		s->wr_id = 0x6000 + sent;				\
		s->opcode = MQ_WQE_SEND;				\
		s->flags = MQ_WQE_F_SIGNALED;				\
		s->num_sge = 1;						\
		s->sge[0] = (struct mq_sge){ .addr = src_iova,		\
			.length = 16, .lkey = src_lkey };		\
		__atomic_store_n(&qrec->sq_pi, ++sent, __ATOMIC_RELEASE); \
		mq_post_send_none(fd, qp.core.qp_handle, &err);		\
		ok = !err;						\
		for (i = 0; i < 2; i++, polled++) {			\
			cqe = mq_cqe((struct mq_cqe *)cq_ring, 6, polled, \
				     3000);				\
			if (!cqe || cqe->status) {			\
				ok = 0;					\
				break;					\
			}						\
			__atomic_store_n(&crec->ci, polled + 1,		\
					 __ATOMIC_RELEASE);		\
		}							\
	} while (0)

	/* Polled, never waited for: the file is the process's only one. */
	fcntl(afd, F_SETFL, fcntl(afd, F_GETFL) | O_NONBLOCK);
	while (ms_event(afd, 0, &ev) == 0)
		;	/* events of earlier checks */
	MS_POST(2);
	MS_SEND();
	check(ok, "srq limit: a SEND takes a receive of the mapped SRQ");
	MS_POST(5);
	{
		struct ib_uverbs_modify_srq c = {
			.srq_handle = srq.core.srq_handle,
			.attr_mask = SRQ_LIMIT_ATTR, .srq_limit = 3,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &c, sizeof(c), 0,
			     "MODIFY_SRQ");
	}
	check(!err && ms_query_limit(fd, srq.core.srq_handle) == 3,
	      "srq limit: armed at 3 with 6 posted, QUERY_SRQ shows 3");
	for (j = 0; j < 3; j++) {
		MS_SEND();
		if (!ok)
			break;
		if (!early && ms_event(afd, 100, &ev) == 0)
			early = 1 + j;
	}
	check(ok && !early,
	      "srq limit: takes leaving 5, 4 and 3 receives posted by the record raise no limit event");
	if (early)
		printf("# srq limit: event %u after take %d\n", ev.event_type,
		       early);
	check(ms_query_limit(fd, srq.core.srq_handle) == 3,
	      "srq limit: QUERY_SRQ still shows 3 with 3 posted");
	MS_SEND();
	err = ms_event(afd, 1000, &ev);
	check(ok && !err && ev.event_type == EV_SRQ_LIMIT &&
	      ev.element == MS_HANDLE,
	      "srq limit: the take leaving 2 raises SRQ_LIMIT_REACHED for the mapped SRQ");
	check(ms_query_limit(fd, srq.core.srq_handle) == 0,
	      "srq limit: QUERY_SRQ shows the limit disarmed after the event");
#undef MS_POST
#undef MS_SEND
	uq_destroy_qp(fd, qp.core.qp_handle);
out_srq:
	uq_destroy_srq(fd, srq.core.srq_handle);
out_cq:
	uq_destroy_cq(fd, cq.core.cq_handle);
out_mr:
	{
		struct ib_uverbs_dereg_mr d = { .mr_handle = mr.mr_handle };

		uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &d, sizeof(d), 0,
		       "DEREG_MR (srq limit)");
	}
}

static unsigned char pattern(size_t i)
{
	return (unsigned char)(((uint32_t)i * 2654435761u) >> 24 ^ (i >> 12));
}

int main(int argc, char **argv)
{
	static const int range_errs[] = { ERANGE, 0 };
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct ib_uverbs_query_device_resp dev_resp = { 0 };
	struct ib_uverbs_alloc_pd_resp pd_resp = { 0 };
	struct ib_uverbs_reg_mr_resp mr_resp = { 0 };
	char dev[300], ibdev[256], hca[560], dbg[600];
	unsigned char *area, *buf, *back = NULL;
	void *mem = NULL;
	size_t page, len, i, bad;
	int fd, err, refused, have_pd = 0, have_mr = 0;
	__u64 iova;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n");
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [/dev/infiniband/uverbsN]\n",
			argv[0]);
		return 2;
	}
	if (argc == 2) {
		const char *base = strrchr(argv[1], '/');

		snprintf(dev, sizeof(dev), "%s", argv[1]);
		base = base ? base + 1 : argv[1];
		if (ibdev_of(base, ibdev, sizeof(ibdev))) {
			printf("# uverbs: error: cannot read %s/%s/ibdev: %s\n",
			       SYS_VERBS, base, strerror(errno));
			return 2;
		}
	} else if (find_vroce(dev, sizeof(dev), ibdev, sizeof(ibdev))) {
		printf("# uverbs: error: no uverbs device of a vroce* ibdev in %s\n",
		       DEV_DIR);
		return 2;
	}
	if (hca_dir_of(ibdev, hca, sizeof(hca))) {
		printf("# uverbs: error: cannot read %s/%s/device: %s\n",
		       SYS_IB, ibdev, strerror(errno));
		return 2;
	}
	snprintf(dbg, sizeof(dbg), "%s/mr_read", hca);
	printf("# uverbs: device %s (ibdev %s), debugfs %s\n", dev, ibdev, dbg);

	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("# uverbs: error: open %s: %s\n", dev, strerror(errno));
		return 2;
	}

	/* Every object command needs a ucontext first: EINVAL before it. */
	{
		struct ib_uverbs_alloc_pd c = { .response = (uintptr_t)&pd_resp };

		err = uv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c),
			     sizeof(pd_resp), "ALLOC_PD (no context)");
		check(err == -EINVAL, "ALLOC_PD before GET_CONTEXT is EINVAL");
	}
	{
		struct ib_uverbs_get_context c = { .response = (uintptr_t)&ctx_resp };

		err = uv_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &c, sizeof(c),
			     sizeof(ctx_resp), "GET_CONTEXT");
		check(!err, "GET_CONTEXT");
		if (err)
			goto out;
		printf("# uverbs: async_fd %u, num_comp_vectors %u\n",
		       ctx_resp.async_fd, ctx_resp.num_comp_vectors);
	}
	{
		struct ib_uverbs_query_device c = { .response = (uintptr_t)&dev_resp };

		err = uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &c, sizeof(c),
			     sizeof(dev_resp), "QUERY_DEVICE");
		check(!err, "QUERY_DEVICE");
		if (!err)
			printf("# uverbs: max_mr_size 0x%llx page_size_cap 0x%llx vendor 0x%x\n",
			       (unsigned long long)dev_resp.max_mr_size,
			       (unsigned long long)dev_resp.page_size_cap,
			       dev_resp.vendor_id);
	}
	{
		struct ib_uverbs_alloc_pd c = { .response = (uintptr_t)&pd_resp };

		err = uv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c),
			     sizeof(pd_resp), "ALLOC_PD");
		check(!err, "ALLOC_PD");
		if (err)
			goto out;
		have_pd = 1;
		printf("# uverbs: pd_handle %u\n", pd_resp.pd_handle);
	}

	page = (size_t)sysconf(_SC_PAGESIZE);
	len = 3 * page + 123;
	/* Page-aligned area so the MR start sits at a known in-page offset. */
	back = malloc(len + 1);
	if (!back || posix_memalign(&mem, page, len + BUF_OFFSET + page)) {
		mem = NULL;
		check(0, "allocate buffers");
		goto out;
	}
	area = mem;
	buf = area + BUF_OFFSET;
	memset(area, 0xee, len + BUF_OFFSET + page);
	for (i = 0; i < len; i++)
		buf[i] = pattern(i);
	iova = (uintptr_t)buf;

	{
		struct ib_uverbs_reg_mr c = {
			.response = (uintptr_t)&mr_resp,
			.start = (uintptr_t)buf,
			.length = len,
			.hca_va = iova,
			.pd_handle = pd_resp.pd_handle,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE |
					IB_UVERBS_ACCESS_REMOTE_READ,
		};

		err = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
			     sizeof(mr_resp), "REG_MR");
		check(!err, "REG_MR");
		if (err)
			goto out;
		have_mr = 1;
		printf("# uverbs: mr_handle %u lkey 0x%x rkey 0x%x iova 0x%llx len %zu\n",
		       mr_resp.mr_handle, mr_resp.lkey, mr_resp.rkey,
		       (unsigned long long)iova, len);
	}

	memset(back, 0, len + 1);
	err = device_read(dbg, mr_resp.lkey, iova, len, back, &refused);
	check(!err, "device reads the whole MR through lkey");
	if (!err) {
		for (i = 0, bad = 0; i < len; i++) {
			if (back[i] == buf[i])
				continue;
			if (!bad++)
				printf("# uverbs: first mismatch at %zu: 0x%02x != 0x%02x\n",
				       i, back[i], buf[i]);
		}
		if (bad)
			printf("# uverbs: %zu of %zu bytes differ\n", bad, len);
		check(!bad, "device bytes match the buffer");
	}

	/* A sub-range straddling the first page boundary of the MR. */
	memset(back, 0, len + 1);
	err = device_read(dbg, mr_resp.lkey, iova + page - BUF_OFFSET - 50, 300,
			  back, &refused);
	check(!err && !memcmp(back, buf + page - BUF_OFFSET - 50, 300),
	      "sub-range across a page boundary matches");

	expect_refused(dbg, mr_resp.lkey, iova, len + 1, back, range_errs,
		       "read of len+1 bytes is refused with ERANGE");
	expect_refused(dbg, mr_resp.lkey ^ 0x80, iova, len, back, NULL,
		       "read with a wrong key (lkey ^ 0x80) is refused");

	debugfs_race(dbg, mr_resp.lkey, iova, len, buf);

	/* Bad REG_MRs: each refused, with nothing left behind. */
	bad_reg_mr(fd, pd_resp.pd_handle, (uintptr_t)buf, 0, iova,
		   IB_UVERBS_ACCESS_LOCAL_WRITE, 0, EINVAL, "of length 0");
	bad_reg_mr(fd, pd_resp.pd_handle, (uintptr_t)buf, len, iova,
		   IB_UVERBS_ACCESS_REMOTE_WRITE, 0, EINVAL,
		   "remote write without local write");
	bad_reg_mr(fd, pd_resp.pd_handle, (uintptr_t)buf, len, iova + 1,
		   IB_UVERBS_ACCESS_LOCAL_WRITE, 0, EINVAL,
		   "whose iova is off the buffer's page offset");
	bad_reg_mr(fd, pd_resp.pd_handle, (uintptr_t)buf, len,
		   (~0ULL - page + 1) | ((uintptr_t)buf & (page - 1)),
		   IB_UVERBS_ACCESS_LOCAL_WRITE, 0, EINVAL,
		   "whose iova range wraps");
	bad_reg_mr(fd, pd_resp.pd_handle, page, page, page,
		   IB_UVERBS_ACCESS_LOCAL_WRITE, 0, EFAULT,
		   "of unmapped memory");
	bad_reg_mr(fd, pd_resp.pd_handle + 1000, (uintptr_t)buf, len, iova,
		   IB_UVERBS_ACCESS_LOCAL_WRITE, 0, ENOENT, "of an unknown PD");
	bad_reg_mr(fd, pd_resp.pd_handle, (uintptr_t)buf, len, iova,
		   IB_UVERBS_ACCESS_LOCAL_WRITE, 0x5a5a, EINVAL,
		   "with driver data");
	bad_reg_mr(fd, pd_resp.pd_handle, (uintptr_t)buf, len, iova,
		   IB_UVERBS_ACCESS_LOCAL_WRITE | 0x80000000u, 0, EINVAL,
		   "with an unknown access bit");
	debugfs_junk(ibdev, hca);
	user_qps(fd, ibdev, pd_resp.pd_handle, mr_resp.lkey, buf, iova);
	user_mapped(fd, ibdev, hca, pd_resp.pd_handle, mr_resp.lkey, buf, iova);
	user_mapped_review(fd, ibdev, hca, pd_resp.pd_handle, mr_resp.lkey, iova);
	user_mapped_fuzz(fd, ibdev, pd_resp.pd_handle, mr_resp.lkey, iova);
	user_mapped_gid(fd, ibdev, pd_resp.pd_handle, mr_resp.lkey, iova);
	user_mapped_srq(fd, ctx_resp.async_fd, ibdev, pd_resp.pd_handle,
			mr_resp.lkey, iova);

	/* Let a caller look at the live MR (make demo runs rdma here). */
	if (getenv("VROCE_UVERBS_HOLD")) {
		fflush(stdout);
		if (system(getenv("VROCE_UVERBS_HOLD")) != 0)
			printf("# uverbs: note: VROCE_UVERBS_HOLD command failed\n");
	}

out:
	if (have_mr) {
		struct ib_uverbs_dereg_mr c = { .mr_handle = mr_resp.mr_handle };

		err = uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &c, sizeof(c), 0,
			     "DEREG_MR");
		check(!err, "DEREG_MR");
		if (!err)
			expect_refused(dbg, mr_resp.lkey, iova, len, back, NULL,
				       "read through the dead lkey is refused");
	}
	if (have_pd) {
		struct ib_uverbs_dealloc_pd c = { .pd_handle = pd_resp.pd_handle };

		err = uv_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &c, sizeof(c), 0,
			     "DEALLOC_PD");
		check(!err, "DEALLOC_PD");
		if (!err && have_mr)
			expect_refused(dbg, mr_resp.lkey, iova, len, back, NULL,
				       "dead lkey still refused after DEALLOC_PD");
	}
	close(fd);
	free(back);
	free(mem);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n",
	       n_pass, n_fail);
	return n_fail ? 1 : 0;
}
