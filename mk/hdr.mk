# make hdr-check: every header under src/ compiles on its own (git's
# hdr-check): a header includes what it uses, so any file may include it
# first.  One stamp per header (build/hdr/, HDR_OUT), redone when it or what it
# includes changes; tests/e2e/style.sh runs it.  HDR_ROOT: the tree to check
# (the style test plants a bad header in a tree of its own).
HDR_ROOT  ?= .
HDR_FILES := $(patsubst $(HDR_ROOT)/%,%,$(shell find $(HDR_ROOT)/src -name '*.h' 2>/dev/null | sort))
HDR_OUT   ?= $(B)/hdr
HDR_STAMP := $(patsubst %.h,$(HDR_OUT)/%.ok,$(HDR_FILES))

.PHONY: hdr-check
hdr-check: $(HDR_STAMP)

# (GEN_HDR expanded late: mk/heap.mk and others, read after this file, add to it)
.SECONDEXPANSION:
$(HDR_OUT)/%.ok: $(HDR_ROOT)/%.h $$(GEN_HDR)
	@mkdir -p $(dir $@)
	$(Q)printf '#include "%s"\n' '$(patsubst src/%,%,$*).h' | \
		$(CC) $(BASEFLAGS) -I$(HDR_ROOT)/src $(PKG_CFLAGS) -fsyntax-only -MMD -MP -MF $@.d -MT $@ -x c - \
		|| { echo "hdr-check: $*.h does not compile on its own" >&2; exit 1; }
	@touch $@
