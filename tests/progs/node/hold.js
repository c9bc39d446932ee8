// Holds N MiB (its argument, else $MIB) of live JS objects (arrays of
// numbers) across a forced full GC, then prints V8's own figure of its heap
// right after it, waits 1.5 s (samples, and a recorder's --settle), and exits:
//   used_heap_size BYTES held CHUNKS
// Run as `node --expose-gc hold.js N` under `tidemark record --runtime node`
// (tests/e2e/runtime_node.sh), which adds --trace-gc and reads V8's lines
// from stdout (captured: tests/fixtures/runtime/node20-trace-gc*-hold24.txt).
'use strict';
const v8 = require('v8');
const mib = Number(process.argv[2] || process.env.MIB || 16);
const held = [];
for (let i = 0; i < mib * 4; i++) {
	// 256 KiB a chunk on V8's heap: an array of 32768 unboxed doubles (a
	// typed array would keep its bytes outside the JS heap)
	held.push(new Array(32768).fill(i + 0.5));
}
setTimeout(() => {
	global.gc();
	const h = v8.getHeapStatistics();
	process.stdout.write(`used_heap_size ${h.used_heap_size} held ${held.length}\n`);
	setTimeout(() => process.exit(0), 1500);
}, 300);
