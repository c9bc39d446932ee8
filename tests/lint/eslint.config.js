// The panel's JavaScript lint: ESLint's recommended rules over the panel's
// modules (web/js) and the browser tests' scripts (tests/browser), run by
// tests/e2e/js_lint.sh.  The browser's globals are listed here (no
// "globals" package): a name not listed is an error (no-undef).
import js from "@eslint/js";

const browser = Object.fromEntries(
	["window", "document", "location", "history", "fetch", "console", "setTimeout",
		"clearTimeout", "setInterval", "clearInterval", "requestAnimationFrame",
		"URLSearchParams", "URL", "AbortController", "Node", "sessionStorage",
		"devicePixelRatio", "getComputedStyle", "addEventListener", "performance",
		"uPlot"].map(n => [n, "readonly"]));
const node = Object.fromEntries(
	["process", "console", "setTimeout", "clearTimeout", "URL", "Buffer"].map(n => [n, "readonly"]));

export default [
	js.configs.recommended,
	{
		files: ["web/js/**/*.js", "build/gen/web/js/*.js"],
		languageOptions: {ecmaVersion: 2022, sourceType: "module", globals: browser},
	},
	{
		files: ["tests/browser/**/*.mjs"],
		languageOptions: {ecmaVersion: 2022, sourceType: "module", globals: {...node, ...browser}},
	},
	{ignores: ["**/node_modules/**", "web/vendor/**"]},
];
