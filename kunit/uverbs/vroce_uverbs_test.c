// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_uverbs_test - user-space check of the vroce MR path through the raw
 * uverbs write() ABI (no rdma-core): GET_CONTEXT, QUERY_DEVICE, ALLOC_PD,
 * REG_MR on an unaligned 3-page+123-byte buffer, then the emulated device
 * reads the MR back through its translation engine (debugfs mr_read) and
 * the bytes are compared. Out-of-range, wrong-key and dead-key reads must
 * fail. Two threads then share one mr_read file, one writing requests and
 * one reading results, to check the file's buffer is swapped safely (the
 * kernel log is checked for KASAN reports by the caller). DEREG_MR and
 * DEALLOC_PD close the run.
 *
 * Build: gcc -O2 -pthread -Wall -Wextra -Werror [-static] -o <binary> <this file>
 * Run as root: vroce_uverbs_test [/dev/infiniband/uverbsN]
 * With VROCE_UVERBS_HOLD set, that shell command runs while the MR lives.
 * Exit: 0 all checks passed, 1 a check failed, 2 no usable device.
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
#include <unistd.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

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

static void check(int ok, const char *what)
{
	if (ok)
		n_pass++;
	else
		n_fail++;
	printf("uverbs: %s: %s\n", ok ? "ok" : "FAIL", what);
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
	__u64 buf[16];
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

		printf("uverbs: %s: write(cmd %u, in_words %u, out_words %u): %s\n",
		       name, command, hdr.in_words, hdr.out_words,
		       strerror(err));
		return -err;
	}
	if ((size_t)ret != len) {
		printf("uverbs: %s: short write %zd of %zu\n", name, ret, len);
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
		printf("uverbs: opendir %s: %s\n", DEV_DIR, strerror(errno));
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
		printf("uverbs: open %s: %s\n", path, strerror(err));
		return -err;
	}
	n = snprintf(line, sizeof(line), "0x%x 0x%llx %zu\n", key,
		     (unsigned long long)iova, len);
	ret = write(fd, line, (size_t)n);
	if (ret < 0) {
		err = errno;
		*refused = 1;
		printf("uverbs: debugfs write \"0x%x 0x%llx %zu\": %s (errno %d)\n",
		       key, (unsigned long long)iova, len, strerror(err), err);
		goto out;
	}
	if (ret != n) {
		printf("uverbs: debugfs: short write %zd of %d\n", ret, n);
		err = EIO;
		goto out;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		err = errno;
		printf("uverbs: debugfs lseek: %s\n", strerror(err));
		goto out;
	}
	while (got < len) {
		ret = read(fd, out + got, len - got);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			printf("uverbs: debugfs read: %s\n", strerror(err));
			goto out;
		}
		if (!ret)
			break;
		got += (size_t)ret;
	}
	if (got != len) {
		printf("uverbs: debugfs: got %zu of %zu bytes\n", got, len);
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
			printf("uverbs: note: %s in use, its faults not injected\n",
			       file);
			return;
		}
		if (err != ENOMEM && !bad++)
			printf("uverbs: %s \"%s\", point %d: %s\n", file, line,
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
	char drv[600], demo[600], long_line[300];

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
	junk_write(demo, "kmr", "bogus", EINVAL);
	junk_write(demo, "kmr", "create create create", EINVAL);
	junk_write(demo, "loopback", "abc", EINVAL);
	junk_write(demo, "loopback", "0", EINVAL);
	junk_write(demo, "loopback", "2097152", EINVAL);
	junk_write(demo, "loopback", "99999999999", ERANGE);

	fault_each(drv, demo, "kmr", "create", "destroy");
	fault_each(drv, demo, "loopback", "4096", NULL);
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
			printf("uverbs: error: cannot read %s/%s/ibdev: %s\n",
			       SYS_VERBS, base, strerror(errno));
			return 2;
		}
	} else if (find_vroce(dev, sizeof(dev), ibdev, sizeof(ibdev))) {
		printf("uverbs: error: no uverbs device of a vroce* ibdev in %s\n",
		       DEV_DIR);
		return 2;
	}
	if (hca_dir_of(ibdev, hca, sizeof(hca))) {
		printf("uverbs: error: cannot read %s/%s/device: %s\n",
		       SYS_IB, ibdev, strerror(errno));
		return 2;
	}
	snprintf(dbg, sizeof(dbg), "%s/mr_read", hca);
	printf("uverbs: device %s (ibdev %s), debugfs %s\n", dev, ibdev, dbg);

	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("uverbs: error: open %s: %s\n", dev, strerror(errno));
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
		printf("uverbs: async_fd %u, num_comp_vectors %u\n",
		       ctx_resp.async_fd, ctx_resp.num_comp_vectors);
	}
	{
		struct ib_uverbs_query_device c = { .response = (uintptr_t)&dev_resp };

		err = uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &c, sizeof(c),
			     sizeof(dev_resp), "QUERY_DEVICE");
		check(!err, "QUERY_DEVICE");
		if (!err)
			printf("uverbs: max_mr_size 0x%llx page_size_cap 0x%llx vendor 0x%x\n",
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
		printf("uverbs: pd_handle %u\n", pd_resp.pd_handle);
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
		printf("uverbs: mr_handle %u lkey 0x%x rkey 0x%x iova 0x%llx len %zu\n",
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
				printf("uverbs: first mismatch at %zu: 0x%02x != 0x%02x\n",
				       i, back[i], buf[i]);
		}
		if (bad)
			printf("uverbs: %zu of %zu bytes differ\n", bad, len);
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

	/* Let a caller look at the live MR (make demo runs rdma here). */
	if (getenv("VROCE_UVERBS_HOLD")) {
		fflush(stdout);
		if (system(getenv("VROCE_UVERBS_HOLD")) != 0)
			printf("uverbs: note: VROCE_UVERBS_HOLD command failed\n");
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
	printf("uverbs: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
