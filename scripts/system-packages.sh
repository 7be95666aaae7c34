# Sourced by the set-up scripts: `need_packages COMMAND:PACKAGE ...` installs, with apt,
# the Debian/Ubuntu package of each command this machine lacks (as root), or says which
# to install and stops. `python3-venv` is asked for by the module `ensurepip`, which
# Debian and Ubuntu leave out of their python3.
need_packages() {
  local missing=() pair command package
  for pair in "$@"; do
    command=${pair%%:*}; package=${pair#*:}
    case $command in
      ensurepip) python3 -c "import ensurepip, venv" 2>/dev/null || missing+=("$package") ;;
      *) command -v "$command" > /dev/null || missing+=("$package") ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null
  else
    echo "error: this needs ${missing[*]} (Debian/Ubuntu: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
}

# Makes (once) and enters the checkout's own Python environment, `.venv`: Debian 12 and
# Ubuntu 24.04 refuse `pip install` into the system Python (PEP 668).
enter_venv() {
  need_packages python3:python3 ensurepip:python3-venv
  [ -x .venv/bin/python3 ] || python3 -m venv .venv
  export VIRTUAL_ENV="$PWD/.venv"
  export PATH="$VIRTUAL_ENV/bin:$PATH"
}
