# The manifest without cmake: the same lines as $BUILD_DIR/bin/manifest.txt (binary, backend, built, defines,
# sources), read from the vmr_library_sources(...) and vmr_add_repro(...) calls of common/*/CMakeLists.txt and
# repro/CMakeLists.txt, which list their files literally for this. Sourced, not run; needs VMR_ROOT.

# Prints the manifest with built "no" for every binary (nothing is built by reading).
vmr_manifest_from_sources() {
  cat "$VMR_ROOT"/common/*/CMakeLists.txt "$VMR_ROOT/repro/CMakeLists.txt" | sed 's/#.*//' | awk '
    BEGIN { RS = ")" }
    {
      if (match($0, /vmr_library_sources\(/)) {
        n = split(substr($0, RSTART + RLENGTH), w, /[ \t\n]+/)
        lib = ""; files = ""
        for (i = 1; i <= n; i++) { if (w[i] == "") continue; if (lib == "") lib = w[i]; else files = files " " w[i] }
        sources[lib] = substr(files, 2)
      } else if (match($0, /vmr_add_repro\(/)) {
        n = split(substr($0, RSTART + RLENGTH), w, /[ \t\n]+/)
        name = ""; key = ""; backend = ""; src = ""; libs = ""; defs = ""
        for (i = 1; i <= n; i++) {
          if (w[i] == "") continue
          if (name == "") { name = w[i]; continue }
          if (w[i] ~ /^(BACKEND|SOURCES|LIBS|DEFINES)$/) { key = w[i]; continue }
          if (key == "BACKEND") backend = w[i]
          else if (key == "SOURCES") src = src " repro/" w[i]
          else if (key == "LIBS") libs = libs " " w[i]
          else if (key == "DEFINES") defs = defs " " w[i]
        }
        order[++count] = name; be[name] = backend; sr[name] = src; li[name] = libs; de[name] = defs
      }
    }
    END {
      for (k = 1; k <= count; k++) {
        name = order[k]
        all = sources["vmr_harness"]
        if (be[name] != "host") all = all " " sources["vmr_gpu"]
        n = split(li[name], l, " ")
        for (i = 1; i <= n; i++) all = all " " sources[l[i]]
        all = all sr[name]
        gsub(/  +/, " ", all); sub(/^ /, "", all)
        d = de[name]; sub(/^ /, "", d); if (d == "") d = "-"
        printf "%s\t%s\tno\t%s\t%s\n", name, be[name], d, all
      }
    }'
}
