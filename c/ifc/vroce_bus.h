/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce bus contract: how an HCA appears to the driver (a "vroce" platform
 * device whose platform data is struct vroce_hca_res), how the driver
 * reaches its registers and which interrupt vectors it has. Silicon would
 * sit behind PCI with the same contract; the emulated HCA (c/hca/)
 * implements it in software.
 */
#ifndef _VROCE_BUS_H_
#define _VROCE_BUS_H_

#include <linux/errno.h>
#include <linux/types.h>

/* Interrupt vectors of the HCA, each with its own handler (like MSI-X). */
#define VROCE_IRQ_CMD		0	/* command responses (VROCE_INTR_CMD_DONE) */
#define VROCE_IRQ_EQ		1	/* event queue entries (VROCE_INTR_EQ) */
#define VROCE_NUM_IRQS		2

/**
 * struct vroce_bus_ops - how the driver reaches the HCA: register cycles
 *	and its interrupt line
 * @read32: read a 32-bit register of BAR 0
 * @write32: write a 32-bit register of BAR 0; writes to one register are
 *	seen by the HCA in program order
 * @request_irq: connect @handler to interrupt vector @vec (VROCE_IRQ_*);
 *	it is called in process context (like a threaded handler), one call
 *	at a time per vector, with no lock of the HCA held: it may sleep,
 *	and may wait for what another vector signals (an event handler may
 *	issue a command), but not for its own vector
 * @free_irq: disconnect vector @vec; no call of its handler runs once this
 *	returns
 *
 * For silicon these would be readl()/writel() on the ioremapped BAR and
 * request_threaded_irq(); the emulated HCA decodes them itself, as a
 * device decodes bus cycles.
 */
struct vroce_bus_ops {
	u32 (*read32)(void *ctx, u32 off);
	void (*write32)(void *ctx, u32 off, u32 val);
	int (*request_irq)(void *ctx, unsigned int vec,
			   void (*handler)(void *data), void *data);
	void (*free_irq)(void *ctx, unsigned int vec);
};

/**
 * struct vroce_hca_res - what the bus hands the driver: platform data of
 *	a "vroce" platform device
 * @bus: register access and interrupt
 * @ctx: the bus's cookie for @bus
 * @link: the Ethernet netdev the HCA's port is (a converged NIC's own
 *	netdev; for the emulated HCA, the netdev its port was cabled to by
 *	'rdma link add'), whose MAC and addresses are the port's; NULL
 *	when the HCA has no Ethernet side the driver can see (the driver
 *	then registers a netdev of its own for the port's addresses)
 */
struct vroce_hca_res {
	const struct vroce_bus_ops *bus;
	void *ctx;
	struct net_device *link;
};

/*
 * The board: what plugs HCAs in at module load. The emulated HCA
 * (CONFIG_VROCE_HCA) adds its platform devices; a build for silicon has
 * none to add (PCI would find it).
 */
struct net_device;

#if IS_ENABLED(CONFIG_VROCE_HCA)
int vroce_hca_plug(void);
void vroce_hca_unplug(void);
int vroce_hca_plug_link(struct net_device *ndev);
#else
static inline int vroce_hca_plug_link(struct net_device *ndev)
{
	return -EOPNOTSUPP;
}

static inline int vroce_hca_plug(void)
{
	return 0;
}

static inline void vroce_hca_unplug(void)
{
}
#endif

#endif /* _VROCE_BUS_H_ */
