/*
 * C++ operator new and delete, in C.
 *
 * libstdc++'s operators call malloc and free, which the shim sees anyway,
 * but jemalloc, tcmalloc and mimalloc export operators of their own: a
 * program run with LD_PRELOAD="libtidemark-heap.so libjemalloc.so.2" would
 * reach jemalloc's new without passing the shim, and jemalloc's delete
 * calls free, which the shim would uncount.  So the shim defines every form
 * itself: new is the shim's malloc (or memalign for the aligned forms) and
 * delete is the shim's free, whichever allocator is next.  Every allocator
 * listed accepts free() of any block its operator new or aligned_alloc
 * returns, so the pairing stays sound; the sized and aligned deletes lose
 * only their hint.
 *
 * When the allocator has nothing left, the standard wants the new-handler
 * called until an allocation succeeds, then std::bad_alloc.  The shim calls
 * the handler itself (a handler typically frees a reserve, counted like any
 * free) and throws through the C++ runtime's own helper, so the exception
 * object is allocated and freed through the counted paths like any other
 * block.  Exceptions pass through the shim's frames: -fexceptions.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "shim.h"

#if __SIZEOF_SIZE_T__ == 8 /* the names below spell size_t as 'm' */

typedef void (*new_handler_fn)(void);

/* ---- failure: the new-handler, then std::bad_alloc --------------------------- */

static new_handler_fn current_handler(void)
{
	static new_handler_fn (*get)(void);
	static int looked;
	if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
		get = (new_handler_fn(*)(void))dlsym(RTLD_DEFAULT, "_ZSt15get_new_handlerv");
		__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	}
	return get ? get() : NULL;
}

/* Retries through the new-handler; NULL when there is none left. */
static void *retry_with_handler(size_t n, size_t align, void *frame)
{
	for (;;) {
		new_handler_fn h = current_handler();
		if (!h)
			return NULL;
		h();
		void *p = tmh_alloc_at(n, align, frame);
		if (p)
			return p;
	}
}

/* std::bad_alloc from the C++ runtime that is loaded: libstdc++'s helper,
 * or libc++'s.  Without either (a runtime we do not know), the next
 * definition of the operator is asked; should it succeed after all, its
 * block is returned uncounted. */
static void *throw_bad_alloc(const char *name, size_t n, size_t align)
{
	static const char *const helpers[] = {"_ZSt17__throw_bad_allocv",
	                                      "_ZNSt3__117__throw_bad_allocEv"};
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		void (*fn)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, helpers[i]);
		if (fn)
			fn(); /* does not return */
	}
	void *next = dlsym(RTLD_NEXT, name);
	if (!next)
		return NULL;
	return align ? ((void *(*)(size_t, size_t))next)(n, align) : ((void *(*)(size_t))next)(n);
}

static inline void *op_new(size_t n, size_t align, const char *name, void *frame)
{
	if (n == 0)
		n = 1; /* new returns a distinct block for size 0 */
	void *p = tmh_alloc_at(n, align, frame);
	if (__builtin_expect(p != NULL, 1))
		return p;
	p = retry_with_handler(n, align, frame);
	return p ? p : throw_bad_alloc(name, n, align);
}

static inline void *op_new_nothrow(size_t n, size_t align, void *frame)
{
	if (n == 0)
		n = 1;
	void *p = tmh_alloc_at(n, align, frame);
	return p ? p : retry_with_handler(n, align, frame);
}

/* ---- the operators ---------------------------------------------------------- */

#define FRAME __builtin_frame_address(0)

/* clang-format off */
TMH_EXPORT void *_Znwm(size_t n) { return op_new(n, 0, "_Znwm", FRAME); }
TMH_EXPORT void *_Znam(size_t n) { return op_new(n, 0, "_Znam", FRAME); }
TMH_EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t al)
{ return op_new(n, al, "_ZnwmSt11align_val_t", FRAME); }
TMH_EXPORT void *_ZnamSt11align_val_t(size_t n, size_t al)
{ return op_new(n, al, "_ZnamSt11align_val_t", FRAME); }
TMH_EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt)
{ (void)nt; return op_new_nothrow(n, 0, FRAME); }
TMH_EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *nt)
{ (void)nt; return op_new_nothrow(n, 0, FRAME); }
TMH_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{ (void)nt; return op_new_nothrow(n, al, FRAME); }
TMH_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{ (void)nt; return op_new_nothrow(n, al, FRAME); }

TMH_EXPORT void _ZdlPv(void *p) { tmh_free(p); }
TMH_EXPORT void _ZdaPv(void *p) { tmh_free(p); }
TMH_EXPORT void _ZdlPvm(void *p, size_t n) { (void)n; tmh_free(p); }
TMH_EXPORT void _ZdaPvm(void *p, size_t n) { (void)n; tmh_free(p); }
TMH_EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *nt) { (void)nt; tmh_free(p); }
TMH_EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *nt) { (void)nt; tmh_free(p); }
TMH_EXPORT void _ZdlPvSt11align_val_t(void *p, size_t al) { (void)al; tmh_free(p); }
TMH_EXPORT void _ZdaPvSt11align_val_t(void *p, size_t al) { (void)al; tmh_free(p); }
TMH_EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al)
{ (void)n, (void)al; tmh_free(p); }
TMH_EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al)
{ (void)n, (void)al; tmh_free(p); }
TMH_EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{ (void)al, (void)nt; tmh_free(p); }
TMH_EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt)
{ (void)al, (void)nt; tmh_free(p); }
/* clang-format on */

#endif
