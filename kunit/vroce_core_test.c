// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite vroce_core: the module binds to its HCA, brings it up and
 * registers it with the RDMA core; DMA addresses made for the HCA lead back
 * to memory; probe failures and unbinding undo exactly what was done.
 */

#include <kunit/test.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/string.h>

#include <rdma/ib_mad.h>

#include "../c/driver/vroce.h"
#include "../c/hca/vroce_hca.h"
#include "../c/ifc/vroce_cmds.h"
#include "../c/ifc/vroce_wqe.h"
#include "vroce_test.h"

static void vroce_core_probe_sets_up_ibdev(struct kunit *test)
{
	struct platform_device *pdev = vroce_test_add_pdev(test);
	struct vroce_dev *vdev = platform_get_drvdata(pdev);
	struct ib_device *ibdev;

	KUNIT_ASSERT_NOT_NULL(test, vdev);
	KUNIT_ASSERT_NOT_NULL(test, pdev->dev.driver);
	KUNIT_EXPECT_STREQ(test, pdev->dev.driver->name, VROCE_DRV_NAME);

	ibdev = &vdev->ibdev;
	KUNIT_EXPECT_PTR_EQ(test, to_vroce_dev(ibdev), vdev);
	KUNIT_EXPECT_PTR_EQ(test, vdev->dma_dev, &pdev->dev);
	KUNIT_EXPECT_PTR_EQ(test, ibdev->dev.parent, &pdev->dev);
	KUNIT_EXPECT_PTR_EQ(test, ibdev->dma_device, &pdev->dev);
	KUNIT_EXPECT_EQ(test, ibdev->node_type, RDMA_NODE_IB_CA);
	KUNIT_EXPECT_EQ(test, ibdev->phys_port_cnt, VROCE_NUM_PORTS);
	KUNIT_EXPECT_EQ(test, ibdev->num_comp_vectors, 1);
	KUNIT_EXPECT_EQ(test, ibdev->ops.driver_id, RDMA_DRIVER_UNKNOWN);
	KUNIT_EXPECT_EQ(test, ibdev->ops.uverbs_abi_ver, VROCE_UVERBS_ABI_VERSION);
	KUNIT_EXPECT_STREQ(test, ibdev->node_desc, "vroce HCA");

	/* Registered with the RDMA core, with the HCA's limits. */
	KUNIT_EXPECT_STRNEQ(test, dev_name(&ibdev->dev), "");
	KUNIT_EXPECT_EQ(test, strncmp(dev_name(&ibdev->dev), "vroce", 5), 0);
	KUNIT_EXPECT_GT(test, ibdev->attrs.max_mr, 0);
	KUNIT_EXPECT_GT(test, ibdev->attrs.max_pd, 0);
	KUNIT_EXPECT_GE(test, ibdev->attrs.max_fast_reg_page_list_len, 512);
	KUNIT_EXPECT_EQ(test, rdma_port_get_link_layer(ibdev, 1),
			IB_LINK_LAYER_ETHERNET);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_roce(ibdev, 1));
	KUNIT_EXPECT_TRUE(test, rdma_protocol_roce_udp_encap(ibdev, 1));
	/* MADs, CM and rdma_cm over the GSI QP, which ib_mad has made. */
	KUNIT_EXPECT_TRUE(test, rdma_cap_ib_mad(ibdev, 1));
	KUNIT_EXPECT_TRUE(test, rdma_cap_ib_cm(ibdev, 1));
	KUNIT_EXPECT_FALSE(test, rdma_cap_ib_smi(ibdev, 1));
	KUNIT_EXPECT_EQ(test, rdma_max_mad_size(ibdev, 1), IB_MGMT_MAD_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, xa_load(&vdev->qps, VROCE_GSI_QPN));
	/* The netdev carries the port's MAC, as the HCA reports it. */
	KUNIT_ASSERT_NOT_NULL(test, vdev->netdev);
	KUNIT_EXPECT_MEMEQ(test, vdev->netdev->dev_addr, vdev->attr.mac,
			   ETH_ALEN);

	/* The probe gave the HCA a full 64-bit DMA mask, streaming and coherent. */
	KUNIT_EXPECT_EQ(test, dma_get_mask(&pdev->dev), DMA_BIT_MASK(64));
	KUNIT_EXPECT_EQ(test, pdev->dev.coherent_dma_mask, DMA_BIT_MASK(64));
}

/*
 * The emulated HCA turns a DMA address into memory with
 * phys_to_virt(dma_to_phys()); check that this leads back to what the CPU
 * wrote, for coherent and for streaming mappings.
 */
static void vroce_core_dma_reaches_memory(struct kunit *test)
{
	struct platform_device *pdev = vroce_test_add_pdev(test);
	struct device *dev = &pdev->dev;
	struct page *page;
	dma_addr_t dma;
	u8 *cpu, *seen;

	cpu = dma_alloc_coherent(dev, PAGE_SIZE, &dma, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cpu);
	memset(cpu, 0xa5, PAGE_SIZE);
	seen = phys_to_virt(dma_to_phys(dev, dma));
	KUNIT_EXPECT_EQ(test, memcmp(seen, cpu, PAGE_SIZE), 0);
	dma_free_coherent(dev, PAGE_SIZE, cpu, dma);

	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	memset(page_address(page), 0x5a, PAGE_SIZE);
	dma = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, dma)) {
		__free_page(page);
		KUNIT_FAIL(test, "dma_map_page failed");
		return;
	}
	seen = phys_to_virt(dma_to_phys(dev, dma));
	KUNIT_EXPECT_PTR_EQ(test, seen, (u8 *)page_address(page));
	dma_unmap_page(dev, dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
	__free_page(page);
}

static struct vroce_dev *vroce_test_create_fails(struct device *dma_dev)
{
	return ERR_PTR(-ENOMEM);
}

/* A failed probe leaves the HCA unbound, with no driver data behind. */
static void vroce_core_probe_failure_unbinds(struct kunit *test)
{
	struct platform_device *pdev;

	kunit_activate_static_stub(test, vroce_dev_create,
				   vroce_test_create_fails);
	pdev = vroce_test_add_pdev(test);
	KUNIT_EXPECT_NULL(test, pdev->dev.driver);
	KUNIT_EXPECT_NULL(test, platform_get_drvdata(pdev));

	/* Without the fault the same device binds. */
	kunit_deactivate_static_stub(test, vroce_dev_create);
	KUNIT_ASSERT_EQ(test, device_attach(&pdev->dev), 1);
	KUNIT_EXPECT_NOT_NULL(test, platform_get_drvdata(pdev));
}

/* Unbind and rebind repeatedly: remove must undo probe exactly. */
static void vroce_core_rebind_cycles(struct kunit *test)
{
	struct platform_device *pdev = vroce_test_add_pdev(test);
	struct vroce_dev *vdev;
	int i;

	for (i = 0; i < 16; i++) {
		device_release_driver(&pdev->dev);
		KUNIT_ASSERT_NULL(test, pdev->dev.driver);
		KUNIT_ASSERT_NULL(test, platform_get_drvdata(pdev));

		KUNIT_ASSERT_EQ(test, device_attach(&pdev->dev), 1);
		vdev = platform_get_drvdata(pdev);
		KUNIT_ASSERT_NOT_NULL(test, vdev);
		KUNIT_EXPECT_PTR_EQ(test, vdev->ibdev.dev.parent, &pdev->dev);
	}
}

/*
 * An HCA that fails a command while the driver brings it up (QUERY_DEVICE,
 * with each status the HCA has, or lost: a 2 s timeout) is left unbound,
 * with everything the probe had set up undone (KASAN and kmemleak watch);
 * once it behaves, the same HCA binds.
 */
static void vroce_core_probe_hca_fails(struct kunit *test)
{
	struct vroce_hca *hca = vroce_test_add_hca(test);
	struct platform_device *pdev = vroce_hca_pdev(hca);
	static const u32 statuses[] = {
		VROCE_CMD_INTERNAL, VROCE_CMD_NO_RESOURCE, VROCE_CMD_BAD_OPCODE,
		VROCE_CMD_BAD_PARAM, VROCE_CMD_BAD_HANDLE, VROCE_CMD_BUSY,
		0,	/* the command is lost */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(statuses); i++) {
		device_release_driver(&pdev->dev);
		if (statuses[i])
			vroce_hca_set_faults(hca, 1, statuses[i], 0, 0);
		else
			vroce_hca_set_faults(hca, 0, 0, 1, 0);
		KUNIT_EXPECT_EQ(test, device_attach(&pdev->dev), 0);
		KUNIT_EXPECT_NULL(test, pdev->dev.driver);
		KUNIT_EXPECT_NULL(test, platform_get_drvdata(pdev));
		vroce_hca_set_faults(hca, 0, 0, 0, 0);
		KUNIT_ASSERT_EQ(test, device_attach(&pdev->dev), 1);
		KUNIT_EXPECT_NOT_NULL(test, platform_get_drvdata(pdev));
	}
}

/* A "vroce" device with no bus behind it is not an HCA: no binding. */
static void vroce_core_no_bus_no_bind(struct kunit *test)
{
	struct platform_device *pdev;

	pdev = kunit_platform_device_alloc(test, VROCE_DRV_NAME,
					   PLATFORM_DEVID_AUTO);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pdev);
	KUNIT_ASSERT_EQ(test, kunit_platform_device_add(test, pdev), 0);
	KUNIT_EXPECT_NULL(test, pdev->dev.driver);
	KUNIT_EXPECT_NULL(test, platform_get_drvdata(pdev));
}

/* Loading the module added the emulated HCA vroce.0 and bound it. */
static void vroce_core_module_adds_hca(struct kunit *test)
{
	struct device *dev;

	dev = bus_find_device_by_name(&platform_bus_type, NULL,
				      VROCE_DRV_NAME ".0");
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_NOT_NULL(test, dev->driver);
	if (dev->driver)
		KUNIT_EXPECT_STREQ(test, dev->driver->name, VROCE_DRV_NAME);
	KUNIT_EXPECT_NOT_NULL(test, dev_get_drvdata(dev));
	put_device(dev);
}

static struct kunit_case vroce_core_cases[] = {
	KUNIT_CASE(vroce_core_module_adds_hca),
	KUNIT_CASE(vroce_core_probe_sets_up_ibdev),
	KUNIT_CASE(vroce_core_dma_reaches_memory),
	KUNIT_CASE(vroce_core_probe_failure_unbinds),
	KUNIT_CASE(vroce_core_rebind_cycles),
	KUNIT_CASE(vroce_core_no_bus_no_bind),
	KUNIT_CASE_SLOW(vroce_core_probe_hca_fails),
	{}
};

static struct kunit_suite vroce_core_suite = {
	.name = "vroce_core",
	.test_cases = vroce_core_cases,
};

kunit_test_suite(vroce_core_suite);
