#!/bin/sh
# Every reference to a section of a document of ours, written
# models/NAME.md, "Title" or docs/NAME.md, "Title" in the code, the tests,
# the benchmarks and the documents, names a heading or a bold lead-in
# (**Title.**) of that document, or the start of one, so a reader who
# follows it finds it.
# A reference to a file the tree does not hold (another project's path,
# quoted as its source) is left alone.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
cd "$top" || exit 1
py=$(command -v /usr/bin/python3 || command -v python3)
if [ -z "$py" ]; then
	ok "# SKIP no python3 to read the references"
	exit 0
fi
out=$("$py" - <<'PY'
import glob, re
docs = sorted(glob.glob("models/*.md") + glob.glob("docs/*.md"))
anchors = {}
for d in docs:
    t = open(d, encoding="utf-8").read()
    a = set(re.findall(r"^#+\s+(.+?)\s*$", t, re.M))
    a |= {x.rstrip(".:") for x in re.findall(r"\*\*([^*\n]+?)\*\*", t)}
    # a heading is found by its whole title, the part before or after a
    # colon, and without a section number ("5. NCCL versions")
    more = set()
    for x in a:
        x = re.sub(r"^\d+\.\s+", "", x)
        more |= {x, x.split(":")[0].strip(), x.split(":", 1)[-1].strip()}
    anchors[d] = a | more
srcs = sorted(glob.glob("src/*.[ch]") + glob.glob("src/cmd/*.[ch]") + glob.glob("tests/unit/*.[ch]")
              + glob.glob("tests/*.sh") + glob.glob("bench/*") + docs + ["README.md"])
for f in srcs:
    try:
        t = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError):
        continue
    # a reference may run over a line break of a comment or a paragraph
    flat = re.sub(r"\n\s*(?:\*(?!\*)|#|//)?\s*", " ", t)
    for d, title in re.findall(r"((?:models|docs)/[\w.-]+\.md),\s*\"([^\"]+)\"", flat):
        if d not in anchors:
            continue
        want = title.strip().rstrip(".").lower()
        # a section named by the start of its title ("Overlap" for "Overlap
        # as the frameworks do it") is found too
        if not any(x.lower() == want or x.lower().startswith(want + " ") for x in anchors[d]):
            print("%s: %s, \"%s\"" % (f, d, title))
PY
)
check "every reference to a section names one that exists${out:+ (not: $out)}" [ -z "$out" ]
