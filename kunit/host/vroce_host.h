/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce host harness: the few kernel definitions c/abi/vroce_mtr.c and
 * c/hca/vroce_hca_mtt.c use, for building them as a user-space program (in
 * the manner of tools/testing/vma). Every linux/ and kunit/ header under
 * kunit/host/include/ includes this one file.
 */
#ifndef _VROCE_HOST_H_
#define _VROCE_HOST_H_

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef uint64_t __le64;
typedef uint32_t __le32;
typedef uint64_t dma_addr_t;
typedef uint64_t phys_addr_t;

#ifndef ENOTSUPP
#define ENOTSUPP		524
#endif

#define BITS_PER_LONG		64
#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_MASK		(~(PAGE_SIZE - 1))
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	GENMASK(h, l)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)
#define ALIGN(x, a)		(((x) + ((typeof(x))(a) - 1)) & ~((typeof(x))(a) - 1))
#define ALIGN_DOWN(x, a)	((x) & ~((typeof(x))(a) - 1))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)
#define PHYS_PFN(x)		((unsigned long)((x) >> PAGE_SHIFT))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __always_unused		__attribute__((unused))
#define __maybe_unused		__attribute__((unused))
#define noinline		__attribute__((noinline))
#define U64_MAX			UINT64_MAX
#define fallthrough		__attribute__((fallthrough))
#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define cpu_to_le64(x)		((__le64)(x))
#define le64_to_cpu(x)		((u64)(x))
#define cpu_to_le32(x)		((__le32)(x))
#define le32_to_cpu(x)		((u32)(x))
#define lower_32_bits(n)	((u32)(n))
#define upper_32_bits(n)	((u32)((u64)(n) >> 32))

/*
 * min() and max() with the kernel's checks (<linux/minmax.h>): each
 * argument evaluated once, and a compile error where a signed and an
 * unsigned argument meet. As in the kernel, an unsigned argument may meet
 * a signed constant that is not negative, and unsigned char and short
 * (promoted to int) meet either. min_t() and max_t() convert both
 * arguments to the type named first.
 */
#define __PASTE(a, b)		a##b
#define __VROCE_ID(p, n)	__PASTE(p, n)
#define __UNIQUE_ID(p)		__VROCE_ID(__UNIQUE_ID_##p, __COUNTER__)
#define __is_constexpr(x) \
	(sizeof(int) == sizeof(*(8 ? ((void *)((long)(x) * 0l)) : (int *)8)))
#define is_signed_type(t)	(((t)(-1)) < (t)1)
#define __is_nonneg_constant(x) \
	__builtin_choose_expr(__is_constexpr(x), (long long)(x) >= 0, 0)
/* Bit 0: fit for an unsigned comparison; bit 1: for a signed one. */
#define __sign_use(x) \
	(is_signed_type(typeof(x)) ? 2 + __is_nonneg_constant(x) : \
				     1 + 2 * (sizeof(x) < 4))
#define __cmp_op_min		<
#define __cmp_op_max		>
#define __cmp(op, x, y)		((x) __cmp_op_##op (y) ? (x) : (y))
#define __careful_cmp_once(op, x, y, ux, uy) ({				\
	_Static_assert(__sign_use(x) & __sign_use(y),			\
		       #op "(" #x ", " #y ") signedness error");	\
	__auto_type ux = (x);						\
	__auto_type uy = (y);						\
	__cmp(op, ux, uy); })
#define __careful_cmp(op, x, y) \
	__careful_cmp_once(op, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))
#define __cmp_once_unique(op, t, x, y, ux, uy) \
	({ t ux = (x); t uy = (y); __cmp(op, ux, uy); })
#define __cmp_once(op, t, x, y) \
	__cmp_once_unique(op, t, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))

#define min(x, y)		__careful_cmp(min, x, y)
#define max(x, y)		__careful_cmp(max, x, y)
#define min_t(t, x, y)		__cmp_once(min, t, x, y)
#define max_t(t, x, y)		__cmp_once(max, t, x, y)
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define swap(a, b)		do { typeof(a) __t = (a); (a) = (b); (b) = __t; } while (0)

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define check_shl_overflow(a, s, d)	({ typeof(a) __a = (a); unsigned int __s = (s); \
	*(d) = __s >= 64 ? 0 : __a << __s; __s >= 64 || (*(d) >> __s) != __a; })
static inline size_t array_size(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline unsigned long __ffs64(u64 x)
{
	return __builtin_ctzll(x);
}

#define ilog2(n)		((n) ? 63 - __builtin_clzll((u64)(n)) : -1)
#define is_power_of_2(n)	((n) != 0 && (((n) & ((n) - 1)) == 0))
#define order_base_2(n)		((n) > 1 ? ilog2((u64)(n) - 1) + 1 : 0)

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }

void vroce_host_warn(const char *file, int line, const char *cond);
#define WARN_ON(c)	({ bool __c = !!(c); if (__c) vroce_host_warn(__FILE__, __LINE__, #c); __c; })
#define WARN_ON_ONCE(c)	WARN_ON(c)
#define might_sleep()	do { } while (0)
#define lockdep_assert_held(l)	do { } while (0)

/* No kernel configuration option is on in the host harness. */
#define IS_ENABLED(option)	0

#define EXPORT_SYMBOL_IF_KUNIT(s)
#define VISIBLE_IF_KUNIT	static

struct device;
struct ib_umem;
struct ib_udata {
	int unused;
};

/* The DMA API, as seen by the walker: DMA addresses are host addresses. */
static inline phys_addr_t dma_to_phys(struct device *dev, dma_addr_t dma)
{
	(void)dev;
	return dma;
}

bool vroce_host_pfn_valid(unsigned long pfn);
#define pfn_valid(pfn)		vroce_host_pfn_valid(pfn)
#define phys_to_virt(p)		((void *)(uintptr_t)(p))

#endif /* _VROCE_HOST_H_ */
