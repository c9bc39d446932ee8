// A Rust program with #[global_allocator] jemalloc under the _rjem_ prefix,
// as tikv-jemallocator builds it, linked with Debian's libjemalloc.a renamed
// (build/progs/librjem.a, mk/heap.mk) and built offline by rustc alone, no
// crate (tests/e2e/heap_attach_static.sh): holds MIB MiB (argv[1]) in
// Vec<u8>s for SECONDS (argv[2]) and prints what jemalloc itself counts as
// allocated while it holds them.
use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::{c_char, c_int, c_void};

extern "C" {
    fn _rjem_malloc(size: usize) -> *mut c_void;
    fn _rjem_aligned_alloc(align: usize, size: usize) -> *mut c_void;
    fn _rjem_free(p: *mut c_void);
    fn _rjem_mallctl(name: *const c_char, old: *mut c_void, oldlen: *mut usize,
                     new: *mut c_void, newlen: usize) -> c_int;
}

struct Jemalloc;
unsafe impl GlobalAlloc for Jemalloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.align() <= 16 {
            _rjem_malloc(l.size()) as *mut u8
        } else {
            _rjem_aligned_alloc(l.align(), l.size()) as *mut u8
        }
    }
    unsafe fn dealloc(&self, p: *mut u8, _l: Layout) {
        _rjem_free(p as *mut c_void)
    }
}

#[global_allocator]
static GLOBAL: Jemalloc = Jemalloc;

fn allocated() -> usize {
    unsafe {
        let mut epoch: u64 = 1;
        let mut sz = std::mem::size_of::<u64>();
        let e = &mut epoch as *mut u64 as *mut c_void;
        _rjem_mallctl(b"epoch\0".as_ptr() as *const c_char, e, &mut sz, e, sz);
        let mut v: usize = 0;
        let mut vz = std::mem::size_of::<usize>();
        _rjem_mallctl(b"stats.allocated\0".as_ptr() as *const c_char,
                      &mut v as *mut usize as *mut c_void, &mut vz, std::ptr::null_mut(), 0);
        v
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mib: usize = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    let secs: u64 = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let held: Vec<Vec<u8>> = (0..mib).map(|i| vec![(i % 251) as u8 + 1; 1 << 20]).collect();
    println!("allocated={}", allocated());
    std::thread::sleep(std::time::Duration::from_secs(secs));
    let sum: usize = held.iter().map(|v| v[0] as usize).sum();
    println!("sum={}", sum);
}
