// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_leaks, linked last: once every other vroce suite has
 * run, have kmemleak scan memory and fail on any leak whose allocation
 * backtrace passes through vroce. debugfs is mounted inside the kernel
 * for the kmemleak file, which is driven through a buffer in the test's
 * own user address space (the file takes no kernel_write()).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "vroce_test.h"

#define LEAK_REPORT_MAX	(256 * 1024)

static ssize_t leak_cmd(struct file *f, char __user *ubuf, const char *cmd)
{
	loff_t pos = 0;

	if (copy_to_user(ubuf, cmd, strlen(cmd)))
		return -EFAULT;
	return f->f_op->write(f, ubuf, strlen(cmd), &pos);
}

/* Read the whole report into @buf through @ubuf; return its length. */
static ssize_t leak_read(struct file *f, char __user *ubuf, char *buf,
			 size_t size)
{
	loff_t pos = 0;
	size_t got = 0;
	ssize_t n;

	while (got < size) {
		n = f->f_op->read(f, ubuf, size - got, &pos);
		if (n <= 0)
			return n < 0 ? n : got;
		if (copy_from_user(buf + got, ubuf, n))
			return -EFAULT;
		got += n;
	}
	return got;
}

static void vroce_leaks_kmemleak(struct kunit *test)
{
	struct file_system_type *fs;
	struct vfsmount *mnt;
	struct file *f;
	char *report, *p, *obj;
	char __user *ubuf;
	ssize_t n;
	int ours = 0;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEMLEAK) || !IS_ENABLED(CONFIG_DEBUG_FS))
		kunit_skip(test, "no kmemleak or no debugfs in this kernel");
	fs = get_fs_type("debugfs");
	KUNIT_ASSERT_NOT_NULL(test, fs);
	mnt = kern_mount(fs);
	put_filesystem(fs);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mnt);
	f = file_open_root_mnt(mnt, "kmemleak", O_RDWR, 0);
	if (IS_ERR(f)) {
		kern_unmount(mnt);
		KUNIT_FAIL(test, "open kmemleak: %ld", PTR_ERR(f));
		return;
	}
	report = kvzalloc(LEAK_REPORT_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, report);
	ubuf = (char __user *)vroce_test_user_mem(test, LEAK_REPORT_MAX, 0);

	/* Objects younger than 5 s are not reported: let the last test age. */
	ssleep(6);
	KUNIT_EXPECT_GT(test, leak_cmd(f, ubuf, "scan"), 0);
	KUNIT_EXPECT_GT(test, leak_cmd(f, ubuf, "scan"), 0);
	n = leak_read(f, ubuf, report, LEAK_REPORT_MAX - 1);
	KUNIT_EXPECT_GE(test, n, 0);
	fput(f);
	kern_unmount(mnt);

	/* One block per object, each starting "unreferenced object". */
	for (p = report; n > 0 && (obj = strstr(p, "unreferenced object")); ) {
		char *next = strstr(obj + 1, "unreferenced object");

		if (next)
			next[-1] = '\0';
		if (strstr(obj, "vroce")) {
			ours++;
			kunit_err(test, "%s", obj);
		}
		if (!next)
			break;
		p = next;
	}
	kunit_info(test, "kmemleak: %zd bytes of report, %d leaks through vroce",
		   n, ours);
	KUNIT_EXPECT_EQ(test, ours, 0);
	kvfree(report);
}

static struct kunit_case vroce_leaks_cases[] = {
	KUNIT_CASE_SLOW(vroce_leaks_kmemleak),
	{}
};

static struct kunit_suite vroce_leaks_suite = {
	.name = "vroce_leaks",
	.test_cases = vroce_leaks_cases,
};

kunit_test_suite(vroce_leaks_suite);
