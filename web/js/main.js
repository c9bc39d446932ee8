/*
 * tidemark panel: machines and runs, a run's live charts, machines side by
 * side and overlaid, benches.  Plain ES modules and uPlot, no build step:
 *   fmt.js (formatting), dom.js, api.js (data), series.js, charts.js,
 *   view_run.js, view_home.js, view_bench.js (pages), router.js.
 * The same modules render `tidemark report --html` files, where web/embed.sh
 * has joined them into one inline script and the data is embedded.
 */
import {start} from "./router.js";

start();
