#!/bin/sh
# The home of a Java of at least the given major version (default 21: Neo4j's 2026 line), found on
# this machine: JAVA_HOME when set, else each JDK or JRE under /usr/lib/jvm (newest first), else
# the java on PATH. Prints that home, or fails naming every Java it found.
# Usage: scripts/java-home.sh [MAJOR]
need=${1:-21}
found=""
major() {
  "$1/bin/java" -version 2>&1 | sed -n '1s/^[^"]*"\([0-9][0-9]*\).*/\1/p'
}
on_path=$(command -v java 2>/dev/null) && on_path=$(dirname "$(dirname "$(readlink -f "$on_path")")")
for home in ${JAVA_HOME:+"$JAVA_HOME"} $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV) $on_path; do
  home=${home%/}
  [ -x "$home/bin/java" ] || continue
  version=$(major "$home")
  if [ -n "$version" ] && [ "$version" -ge "$need" ]; then
    echo "$home"
    exit 0
  fi
  case "$found" in *" $home "*) ;; *) found="$found $home (${version:-unknown})" ;; esac
done
echo "no Java $need or newer on this machine (found:${found:- none}): install a JDK or JRE" \
  "$need+ and set JAVA_HOME to it" >&2
exit 1
