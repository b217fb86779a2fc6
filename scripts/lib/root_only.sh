# Folders only root can change, for what runs as root (scripts/health-check under slurmd or NHC, scripts/triage run
# by root). Sourced, not run.
#
# The rule: root writes only into a folder that is root's and that no group or other user can write, under folders
# that are root's too, each either written by root alone or sticky (/tmp, /var/tmp: there others cannot rename or
# remove root's entries). Otherwise another user could make the folder first, or swap a folder root made for a
# symlink, and choose where root writes. A symlink on the way is followed only when it is root's (as the kernel's
# protected_symlinks, which is off in many containers); the folder itself is never a symlink. Under sudo the caller
# (SUDO_UID) counts as root: they are root already, and `sudo ./scripts/triage` in their own checkout is the common
# case.

# True where UID may own what root writes into: root, or sudo's caller.
vmr_root_only_owner() { [ "$1" = 0 ] || { [ -n "${SUDO_UID-}" ] && [ "$1" = "$SUDO_UID" ]; }; }

# Why PATH (one component of a walk, its parents already checked) cannot hold root's files; nothing where it can.
# LAST=1: PATH is the folder itself (not sticky-writable, not a symlink); 0: a folder above it.
vmr_root_only_why() {
  local path=$1 last=$2 uid mode
  if [ -L "$path" ]; then
    [ "$last" = 1 ] && { echo "$path is a symlink"; return; }
    uid=$(stat -c %u -- "$path") || { echo "cannot stat $path"; return; }
    vmr_root_only_owner "$uid" || { echo "$path is a symlink of uid $uid, not root's"; return; }
  fi
  [ -d "$path" ] || { echo "$path is not a folder"; return; }
  read -r uid mode < <(stat -L -c '%u %a' -- "$path") || { echo "cannot stat $path"; return; }
  vmr_root_only_owner "$uid" || { echo "$path is owned by uid $uid, not root"; return; }
  if (((8#$mode & 8#022) != 0)) && { [ "$last" = 1 ] || (((8#$mode & 8#1000) == 0)); }; then
    echo "$path can be written by its group or others (mode $mode)"
  fi
}

# Makes FOLDER (and the folders above it that are missing, mode 0755) where only root writes, checking each folder
# of the path from / down before anything is made in it; prints why not, one line, and fails where any is another
# user's to change (nothing is made in or below that one). A folder someone else made between the check and mkdir
# is checked like any other.
vmr_root_only_folder() {
  local path=$1 walked= part why last
  [[ "$path" == /* ]] || path=$PWD/$path
  path=$(printf '%s' "$path" | tr -s /)  # (a doubled slash)
  while [[ "$path" == */ && "$path" != / ]]; do path=${path%/}; done
  [ "$path" != / ] || { why=$(vmr_root_only_why / 1); [ -z "$why" ] || { echo "$why"; return 1; }; return 0; }
  local -a parts
  IFS=/ read -ra parts <<<"${path#/}"
  for part in "${parts[@]}"; do
    walked=$walked/$part
    [ -e "$walked" ] || [ -L "$walked" ] || mkdir -m 0755 -- "$walked" 2>/dev/null
    last=0
    [ "$walked" = "$path" ] && last=1
    why=$(vmr_root_only_why "$walked" "$last")
    [ -z "$why" ] || { echo "$why"; return 1; }
  done
}
