#!/bin/sh
# The panel's JavaScript passes its lint: ESLint (pinned in
# tests/lint/package.json and package-lock.json, installed by npm ci on
# first use like tests/browser's playwright-core) with the recommended
# rules over web/js and the module generated from the allocator registry;
# and the lint sees what it forbids (a planted unused name and an unknown
# global fail it).
. "$(dirname "$0")/../lib.sh"
cd "$TM_ROOT" || exit 1

LINT_DIR=$TM_ROOT/tests/lint
ESLINT=$LINT_DIR/node_modules/eslint/bin/eslint.js
if ! command -v node >/dev/null 2>&1; then
	skip js_lint "needs node"
	finish
fi
if [ ! -f "$ESLINT" ]; then
	(cd "$LINT_DIR" && npm ci --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip js_lint "cannot npm ci eslint (offline?): $(tail -2 "$T/npm.log")"; finish; }
fi

gen=
[ -f "$TM_BUILD/gen/web/js/allocators.js" ] && gen=$TM_BUILD/gen/web/js/allocators.js
# shellcheck disable=SC2086 # gen is one path or none
check js_lint_panel node "$ESLINT" -c "$LINT_DIR/eslint.config.js" web/js $gen

mkdir -p "$T/web/js"
printf 'export function f() {\n\treturn 1;\n}\n' >"$T/web/js/good.js"
check js_lint_passes_clean_module sh -c "cd '$T' && node '$ESLINT' -c '$LINT_DIR/eslint.config.js' web/js"
printf 'const unused = 1;\nexport function g() {\n\treturn nowhere;\n}\n' >"$T/web/js/bad.js"
check_fails js_lint_refuses_unused "'unused' is assigned a value but never used" \
	sh -c "cd '$T' && node '$ESLINT' -c '$LINT_DIR/eslint.config.js' web/js"
check_fails js_lint_refuses_unknown_global "'nowhere' is not defined" \
	sh -c "cd '$T' && node '$ESLINT' -c '$LINT_DIR/eslint.config.js' web/js"
finish
