# The manifest without cmake: the same lines as $BUILD_DIR/bin/manifest.txt (binary, backend, toolchain,
# defines, sources), read from repro/manifest.txt, the one manifest CMake builds from too. Sourced, not run; needs VMR_ROOT.

# The one reader of repro/manifest.txt: every line is checked, then `vmr_read_manifest binaries` prints the
# manifest with toolchain "unchecked" for every binary (reading asks no compiler), and `vmr_read_manifest library NAME`
# the sources of that library, in build order, one per line.
vmr_read_manifest() {
  sed 's/#.*//' "$VMR_ROOT/repro/manifest.txt" | awk -v mode="$1" -v lib="${2-}" '
    NF == 0 { next }
    $1 == "library" && NF > 2 {
      for (i = 3; i <= NF; i++) { sources[$2] = sources[$2] " " $i; if (mode == "library" && $2 == lib) print $i }
      next
    }
    $1 == "binary" && NF == 6 {
      n = split($4, libs, ",")
      all = ""
      for (i = 1; i <= n; i++) {
        if (!(libs[i] in sources)) { print "repro/manifest.txt: " $2 " links the unknown library " libs[i] > "/dev/stderr"; bad = 1; exit }
        all = all sources[libs[i]]
      }
      defines = $5; gsub(/,/, " ", defines)
      if (mode == "binaries") printf "%s\t%s\tunchecked\t%s\t%s\n", $2, $3, defines, substr(all, 2) " " $6
      next
    }
    { print "repro/manifest.txt: cannot read the line \"" $0 "\"" > "/dev/stderr"; bad = 1; exit }
    END { exit bad }'
}

vmr_library_sources() { vmr_read_manifest library "$1"; }
vmr_manifest_from_sources() { vmr_read_manifest binaries; }
