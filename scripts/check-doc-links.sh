#!/usr/bin/env bash
# Checks that the repository's Markdown stands alone: every relative link `](target)` names a file or
# folder that exists (relative to the Markdown file), no link is an absolute path or
# leaves the repository, a `#fragment` into a Markdown file names one of its headings (as GitHub makes
# anchors: lower case, punctuation dropped, spaces to hyphens), and no page cites private notes that a
# clone does not have.
#
# Usage: scripts/check-doc-links.sh [ROOT]     (ROOT: the repository, default: this script's parent)
#        scripts/check-doc-links.sh --self-test  (runs the check on a made-up tree with known faults)
# Exit 0 when every file is clean; 1 naming each FILE:LINE and the problem; 2 for a bad ROOT.
# Files: the *.md git tracks or would track (not ignored), else every *.md outside build*/ and out/.
# Links to web pages (http, https, mailto) are not checked.
set -uo pipefail

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
if [[ "${1:-}" == "--self-test" ]]; then
    # A tree outside git with one good link of each kind and one fault of each kind: the check must fail
    # and name exactly these faults.
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/docs" "$tmp/build/deps"
    {
        echo '# t'
        echo '[a](docs/b.md) [b](docs/b.md#the-part-srcx) [c](docs) [d](https://example.org/x.md) [e](#t) [f](<docs/b.md>)'
        echo '[g](docs/missing.md#part) [g2](docs/b.md#no-such-part) [g3](#t-1)'
        echo '[h](../shared/SPEC.md)'
        echo '[i](/etc/hostname)'
        echo 'As SPEC § 4 says.'
        echo '```'
        echo '[j](not-checked-in-code.md)'
        echo '```'
    } >"$tmp/README.md"
    printf '%s\n' '## The part (`src/x`)' '[up](../README.md#t) [titled](b.md "title")' >"$tmp/docs/b.md"
    echo '[k](not-checked-in-build.md)' >"$tmp/build/deps/c.md"
    expected="README.md:3: link 'docs/missing.md#part' names docs/missing.md, which does not exist
README.md:3: link 'docs/b.md#no-such-part': no heading of docs/b.md has that anchor
README.md:3: link '#t-1': no heading of README.md has that anchor
README.md:4: cites private notes outside the repository (say it here instead)
README.md:4: link '../shared/SPEC.md' leaves the repository
README.md:5: link '/etc/hostname' is an absolute path (use a path relative to README.md)
README.md:6: cites private notes outside the repository (say it here instead)
check-doc-links: 7 problem(s) in 2 Markdown file(s)"
    got=$("$0" "$tmp")
    rc=$?
    if [[ $rc -ne 1 || "$got" != "$expected" ]]; then
        echo "check-doc-links --self-test: exit $rc (expected 1), output:"
        echo "$got"
        echo "expected:"
        echo "$expected"
        exit 1
    fi
    echo "check-doc-links --self-test: the 7 planted faults found, nothing else"
    exit 0
fi
root=${1:-"$(cd "$(dirname "$0")/.." && pwd)"}
if [[ ! -d "$root" ]]; then
    echo "check-doc-links: $root is not a folder (give the repository's root)" >&2
    exit 2
fi
root=$(cd "$root" && pwd -P)

list_markdown() {
    if git -C "$root" rev-parse --show-toplevel >/dev/null 2>&1; then
        git -C "$root" ls-files --cached --others --exclude-standard -- '*.md' | sort -u
    else
        (cd "$root" && find . \( -path './build*' -o -path './out' -o -path './.git' \) -prune -o -name '*.md' -print |
            sed 's|^\./||' | sort)
    fi
}

# The anchors of a Markdown file's headings, one a line (outside code blocks; a repeated heading gets -1,
# -2, ... as on GitHub).
anchors_of() {
    awk '
        /^[[:space:]]*(```|~~~)/ { fence = !fence; next }
        fence || !/^#+[[:space:]]/ { next }
        {
            h = $0
            sub(/^#+[[:space:]]+/, "", h); sub(/[[:space:]]+#*[[:space:]]*$/, "", h)
            h = tolower(h)
            gsub(/[^a-z0-9 _-]/, "", h)
            gsub(/ /, "-", h)
            n = seen[h]++
            print (n ? h "-" n : h)
        }' "$1"
}
has_anchor() { # FILE ANCHOR
    anchors_of "$1" | grep -qxF -- "$2"
}

problems=0
report() { # FILE LINE MESSAGE
    echo "$1:$2: $3"
    problems=$((problems + 1))
}

checked=0
while IFS= read -r md; do
    [[ -f "$root/$md" ]] || continue # listed by git but deleted in the working tree
    checked=$((checked + 1))
    dir=$(dirname "$root/$md")
    lineno=0
    in_fence=0
    while IFS= read -r line || [[ -n "$line" ]]; do
        lineno=$((lineno + 1))
        # Code blocks hold commands and program text, not links.
        if [[ "$line" =~ ^[[:space:]]*(\`\`\`|~~~) ]]; then
            in_fence=$((1 - in_fence))
            continue
        fi
        ((in_fence)) && continue
        # Citations of the private design notes, which are not part of the repository.
        if [[ "$line" =~ SPEC[[:space:]]*§ || "$line" =~ \.\./shared/ || "$line" =~ /work/shared ]]; then
            report "$md" "$lineno" "cites private notes outside the repository (say it here instead)"
        fi
        rest=$line
        # Inline links and images: ](target) or ](target "title") or ](<target>).
        while [[ "$rest" =~ \]\(([^\)]*)\) ]]; do
            target=${BASH_REMATCH[1]}
            rest=${rest#*"${BASH_REMATCH[0]}"}
            target=${target%% \"*}
            target=${target#<}
            target=${target%>}
            case "$target" in
            http://* | https://* | mailto:* | '') continue ;;
            '#'*)
                has_anchor "$root/$md" "${target#\#}" ||
                    report "$md" "$lineno" "link '$target': no heading of $md has that anchor"
                continue
                ;;
            esac
            path=${target%%#*}
            if [[ "$path" == /* || "$path" == ~* || "$path" =~ ^[A-Za-z]:[/\\] || "$path" == file:* ]]; then
                report "$md" "$lineno" "link '$target' is an absolute path (use a path relative to $md)"
                continue
            fi
            resolved=$(realpath -m -- "$dir/$path")
            if [[ "$resolved" != "$root" && "$resolved" != "$root"/* ]]; then
                report "$md" "$lineno" "link '$target' leaves the repository"
            elif [[ ! -e "$resolved" ]]; then
                report "$md" "$lineno" "link '$target' names ${resolved#"$root"/}, which does not exist"
            elif [[ "$target" == *'#'* && "$resolved" == *.md && -f "$resolved" ]] &&
                ! has_anchor "$resolved" "${target#*#}"; then
                report "$md" "$lineno" "link '$target': no heading of ${resolved#"$root"/} has that anchor"
            fi
        done
    done <"$root/$md"
done < <(list_markdown)

if ((checked == 0)); then
    echo "check-doc-links: no Markdown files found under $root" >&2
    exit 1
fi
if ((problems > 0)); then
    echo "check-doc-links: $problems problem(s) in $checked Markdown file(s)"
    exit 1
fi
echo "check-doc-links: $checked Markdown file(s), every link inside the repository and present"
