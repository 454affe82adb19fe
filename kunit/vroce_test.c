// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the vroce KUnit suites.
 */

#include <kunit/platform_device.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "../c/vroce.h"
#include "vroce_test.h"

/**
 * vroce_test_add_hca() - add a "vroce" platform device the driver binds to
 * @test: the test; KUnit removes the device when it ends
 *
 * Return: the device (bound unless a stub makes the probe fail).
 */
struct platform_device *vroce_test_add_hca(struct kunit *test)
{
	struct platform_device *pdev;

	pdev = kunit_platform_device_alloc(test, VROCE_DRV_NAME,
					   PLATFORM_DEVID_AUTO);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdev);
	KUNIT_ASSERT_EQ(test, kunit_platform_device_add(test, pdev), 0);
	return pdev;
}

/**
 * vroce_test_dev() - a freshly probed vroce device for one test
 * @test: the test; KUnit removes the device when it ends
 *
 * Return: the driver's device, with its allocation counters at zero.
 */
struct vroce_dev *vroce_test_dev(struct kunit *test)
{
	struct vroce_dev *vdev = platform_get_drvdata(vroce_test_add_hca(test));

	KUNIT_ASSERT_NOT_NULL(test, vdev);
	return vdev;
}

/**
 * vroce_test_expect_no_memory_held() - every MR/MTR allocation was freed
 * @test: the test
 * @vdev: the device whose accounting is checked
 */
void vroce_test_expect_no_memory_held(struct kunit *test,
				      struct vroce_dev *vdev)
{
	KUNIT_EXPECT_EQ(test, atomic64_read(&vdev->mem.allocs),
			atomic64_read(&vdev->mem.frees));
}

MODULE_DESCRIPTION("KUnit tests for the vroce driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
