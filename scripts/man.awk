# A command's --help text (stdin) as a man page (stdout); see scripts/man.sh
# for the variables and the mapping of the help's parts to the page's sections.

function esc(s) {
	gsub(/\\/, "\\e", s)
	s = docs(s)
	if (s ~ /^[.']/) s = "\\&" s
	return s
}
# the documentation at its installed place
function docs(s,   out, m) {
	out = ""
	while (match(s, /docs\/[A-Za-z0-9_-]+\.md/)) {
		m = substr(s, RSTART + 5, RLENGTH - 5)
		seen_doc[m] = 1
		out = out substr(s, 1, RSTART - 1) docdir "/" m
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}
function bold_term(t) {
	t = esc(t)
	gsub(/-/, "\\-", t)
	return "\\fB" t "\\fR"
}
function indent_of(l) { match(l, /^ */); return RLENGTH }
function trim(l) { sub(/^ +/, "", l); sub(/ +$/, "", l); return l }
# an entry line "  -x, --flag ARG   help": the term and the help, split at
# the first run of two spaces
function entry(l, buf,   t, h) {
	l = trim(l)
	if (match(l, /  +/)) {
		t = substr(l, 1, RSTART - 1)
		h = substr(l, RSTART + RLENGTH)
	} else {
		t = l
		h = ""
	}
	buf = buf ".TP\n" bold_term(t) "\n"
	if (h != "") buf = buf esc(h) "\n"
	return buf
}
# an example line broken with shell continuations at spaces outside quotes,
# so that the page fits 80 columns (the body is indented by 7)
function example(l,   out, p, i, c, q, last) {
	out = ""
	while (length(l) > 70) {
		q = ""
		last = 0
		for (i = 1; i <= 68 && i <= length(l); i++) {
			c = substr(l, i, 1)
			if (q == "" && (c == "'" || c == "\"")) q = c
			else if (c == q) q = ""
			else if (q == "" && c == " " && i > 8) last = i
		}
		if (!last) break
		out = out esc(substr(l, 1, last - 1)) " \\e\n"
		l = "    " substr(l, last + 1)
	}
	return out esc(l) "\n"
}
function para(kind, l) {
	if (kind == "exit") {
		if (exitp != "" && blank_exit) exitp = exitp ".PP\n"
		exitp = exitp esc(l) "\n"
		blank_exit = 0
	} else {
		if (desc != "" && blank_desc) desc = desc ".PP\n"
		desc = desc esc(l) "\n"
		blank_desc = 0
	}
}

BEGIN { mode = "synopsis"; nsyn = 0 }

mode == "synopsis" && /^usage: / { syn[++nsyn] = substr($0, 8); next }
mode == "synopsis" && /^ +/ && nsyn {
	l = trim($0)
	if (l ~ /^tidemark /) syn[++nsyn] = l
	else syn[nsyn] = syn[nsyn] " " l
	next
}
/^$/ {
	if (mode == "synopsis" && nsyn) mode = "desc"
	blank_desc = 1
	blank_exit = 1
	if (mode == "exit") mode = "desc"
	if (mode == "desc") blank_list = 1
	next
}
/^[a-z][^:]*:$/ {
	title = substr($0, 1, length($0) - 1)
	if (title == "examples") { mode = "examples"; next }
	if (title ~ /^environment/) { mode = "env"; next }
	mode = "opts"
	if (nsect++ > 0 || (title != "options" && title != "commands")) {
		t = toupper(substr(title, 1, 1)) substr(title, 2)
		opts = opts ".SS " esc(t) "\n"
	}
	next
}
mode == "examples" { ex = ex example(substr($0, 3)); next }
/^Exit status: / { mode = "exit"; blank_exit = 1; para("exit", substr($0, 14)); next }
/^[^ ]/ {
	if (mode != "exit") mode = "desc"
	para(mode, $0)
	next
}
# indented lines: entries (a term at an indent of at most 6) or their
# continuations, in the options, the environment, or a list in the text
{
	if (mode == "exit") { para("exit", trim($0)); next }
	if (mode == "desc" && blank_list && indent_of($0) > 6) {
		# an indented text paragraph, not a list
		desc = desc ".RS\n" esc(trim($0)) "\n.RE\n"
		next
	}
	if (indent_of($0) <= 6) {
		if (mode == "opts") opts = entry($0, opts)
		else if (mode == "env") envs = entry($0, envs)
		else { desc = entry($0, desc); blank_list = 0 }
	} else {
		if (mode == "opts") opts = opts esc(trim($0)) "\n"
		else if (mode == "env") envs = envs esc(trim($0)) "\n"
		else desc = desc esc(trim($0)) "\n"
	}
}

END {
	up = toupper(name)
	printf ".TH %s 1 \"%s\" \"%s\" \"tidemark\"\n", up, date, version
	print ".nh"
	print ".SH NAME"
	print name " \\- " esc(summary)
	# each usage line a hanging paragraph, filled to the width
	print ".SH SYNOPSIS"
	for (i = 1; i <= nsyn; i++) print ".HP 4\n.nh\n.ad l\n" esc(syn[i])
	print ".ad"
	print ".SH DESCRIPTION"
	printf "%s", desc
	if (opts != "") {
		print (name == "tidemark" ? ".SH COMMANDS" : ".SH OPTIONS")
		printf "%s", opts
	}
	print ".SH ENVIRONMENT"
	printf "%s", envs
	while ((getline l < envfile) > 0) {
		if (l ~ /^#/ || l == "") continue
		split(l, f, "\t")
		n = split(f[2], who, ",")
		listed = (f[2] == "all" || name == "tidemark")
		for (i = 1; i <= n; i++) if (who[i] == cmd) listed = 1
		if (listed) printf ".TP\n\\fB%s\\fR\n%s\n", f[1], esc(f[3])
	}
	print ".SH FILES"
	if (cmd == "serve") print ".TP\n\\fI./tidemark\\-server.db\\fR\nthe server's store when neither \\fB\\-\\-db\\fR nor \\fB$TIDEMARK_SERVER_DB\\fR is given"
	else print ".TP\n\\fI./tidemark.db\\fR\nthe store when neither \\fB\\-\\-db\\fR nor \\fB$TIDEMARK_DB\\fR is given"
	print ".TP\n\\fI" docdir "/\\fR\nthe documentation: each figure, rule and file format"
	print ".SH EXIT STATUS"
	if (exitp != "") printf "%s", exitp
	else print "0 on success; 1 when it failed, with a message on standard error that says why; 2 on bad arguments."
	if (ex != "") {
		print ".SH EXAMPLES"
		print ".nf"
		printf "%s", ex
		print ".fi"
	}
	print ".SH SEE ALSO"
	print also
	for (d in seen_doc) docs_list = docs_list (docs_list == "" ? "" : ",\n") "\\fI" docdir "/" d "\\fR"
	if (docs_list != "") print ".PP\n" docs_list
}
