#!/usr/bin/env bash
# slurm-local.sh - a real Slurm (munge, slurmctld, slurmd from Debian's packages)
# on this one machine, for trying and testing the slurm/ scripts.
#
#   scripts/slurm-local.sh start  [--nodes 1|2] [--cpus N] [--max-array N] [--dir DIR]
#   scripts/slurm-local.sh status [--dir DIR]
#   scripts/slurm-local.sh stop   [--dir DIR]
#   scripts/slurm-local.sh env    [--dir DIR]
#
# start   writes a private configuration under DIR (default $NDD_SLURM_DIR or
#         /tmp/ndd-slurm-local), starts a munged with its own key and socket, a
#         slurmctld and one slurmd per node, waits until every node is idle and
#         prints two export lines on stdout, so that
#             eval "$(scripts/slurm-local.sh start --nodes 2)"
#         points sbatch/squeue/srun at it: SLURM_CONF=DIR/etc/slurm.conf, and
#         OMPI_MCA_btl_vader_backing_directory=DIR/shm (exported to the jobs
#         by sbatch). Two clusters on one machine would otherwise give their
#         jobs the same OpenMPI shared-memory files: both number jobs from 1,
#         Slurm names a step's PMIx namespace after its job and step numbers,
#         OpenMPI derives its job id from that name and names its segment
#         files /dev/shm/vader_segment.HOST.JOBID.RANK — two jobs mapping one
#         file crash in the shared-memory transport. Each cluster also numbers
#         its jobs from its own FirstJobId (from its port).
#         --nodes 1: one node "localhost" on 127.0.0.1.
#         --nodes 2: nodes n1 and n2, each slurmd in its own network namespace
#           (and its own UTS namespace, so its own hostname) joined by a private
#           bridge; the controller listens on the bridge address. MPI traffic
#           between ranks on n1 and n2 really crosses the veth pairs.
#         --cpus N: CPUs each node declares (default 2; may exceed the real cores,
#           SlurmdParameters=config_overrides).
#         --max-array N: the cluster's MaxArraySize (default 1001, Slurm's).
# status  prints the daemons' pids and liveness, then sinfo; exit 0 when all run.
# stop    'scontrol shutdown', then ends exactly the processes this script
#         started (pids recorded in DIR/state, checked against their names),
#         stops munged, deletes the namespaces and the bridge it created.
# env     prints the export lines again.
#
# Addresses: 127.0.0.1 and, for --nodes 2, a /24 in 10.77.X.0 that no route
# of this machine uses, on a bridge and namespaces this script creates and
# deletes itself. Ports: a free pair in 17000-17999 (two clusters can coexist).
#
# Needs root, the packages slurmctld slurmd slurm-client munge (scripts/setup.sh),
# and for --nodes 2 iproute2, nsenter/unshare and network namespaces.
# Exit codes: 0 ok, 1 failure (logs are shown), 2 bad usage, 3 this machine
# cannot run it (not root, packages or namespaces missing): tests skip then.
set -uo pipefail

die() { echo "slurm-local.sh: $*" >&2; exit 1; }
cannot() { echo "slurm-local.sh: cannot run here: $*" >&2; exit 3; }
usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
nodes=1 cpus=2 max_array=1001
dir=${NDD_SLURM_DIR:-/tmp/ndd-slurm-local}
while [ $# -gt 0 ]; do
  case $1 in
    --nodes) nodes=${2:-}; shift 2 ;;
    --cpus) cpus=${2:-}; shift 2 ;;
    --max-array) max_array=${2:-}; shift 2 ;;
    --dir) dir=${2:-}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "slurm-local.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case $nodes in 1|2) ;; *) echo "slurm-local.sh: --nodes takes 1 or 2" >&2; exit 2 ;; esac
[[ $cpus =~ ^[1-9][0-9]*$ ]] || { echo "slurm-local.sh: --cpus takes a positive number" >&2; exit 2; }
[[ $max_array =~ ^[1-9][0-9]*$ ]] || { echo "slurm-local.sh: --max-array takes a positive number" >&2; exit 2; }
mkdir -p "$dir" 2>/dev/null || die "cannot create $dir"
dir=$(cd "$dir" && pwd)
state=$dir/state
conf=$dir/etc/slurm.conf

# ---- state file: "pid NAME PID COMM", "netns NAME", "link NAME" ----
record() { echo "$*" >>"$state"; }

# True when PID is alive and its command name is COMM (guards against pid reuse).
pid_is() {
  local pid=$1 comm=$2 c
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] || return 1
  c=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [ "$c" = "$comm" ]
}

# Waits for a pid file to appear with a live process of the expected name.
wait_pidfile() {
  local f=$1 comm=$2 i pid
  for i in $(seq 1 100); do
    if [ -s "$f" ]; then
      pid=$(tr -dc 0-9 <"$f")
      if pid_is "$pid" "$comm"; then echo "$pid"; return 0; fi
    fi
    sleep 0.1
  done
  return 1
}

show_logs() {
  local f
  for f in "$dir"/log/*.log; do
    [ -f "$f" ] || continue
    echo "---- $f (last 30 lines) ----" >&2
    tail -n 30 "$f" >&2
  done
}

do_stop() {
  [ -f "$state" ] || { echo "slurm-local.sh: nothing recorded in $dir (not started?)" >&2; return 0; }
  local kind name pid comm i alive
  if [ -f "$conf" ] && grep -q '^pid slurmctld ' "$state"; then
    SLURM_CONF=$conf timeout 10 scontrol shutdown >/dev/null 2>&1 || true
  fi
  # wait for the slurm daemons to leave by themselves, then end what is left
  for i in $(seq 1 100); do
    alive=0
    while read -r kind name pid comm; do
      [ "$kind" = pid ] && [ "$name" != munged ] && pid_is "$pid" "$comm" && alive=1
    done <"$state"
    [ $alive = 0 ] && break
    sleep 0.1
  done
  local sig
  for sig in TERM KILL; do
    while read -r kind name pid comm; do
      if [ "$kind" = pid ] && pid_is "$pid" "$comm"; then
        kill -"$sig" "$pid" 2>/dev/null || true
      fi
    done <"$state"
    for i in $(seq 1 50); do
      alive=0
      while read -r kind name pid comm; do
        [ "$kind" = pid ] && pid_is "$pid" "$comm" && alive=1
      done <"$state"
      [ $alive = 0 ] && break
      sleep 0.1
    done
    [ $alive = 0 ] && break
  done
  while read -r kind name _; do
    [ "$kind" = netns ] && ip netns del "$name" 2>/dev/null
  done <"$state"
  while read -r kind name _; do
    [ "$kind" = link ] && ip link del "$name" 2>/dev/null
  done <"$state"
  rm -f "$state"
  [ $alive = 0 ] || die "some processes did not end"
  echo "slurm-local.sh: stopped (files kept in $dir)" >&2
}

do_status() {
  [ -f "$state" ] || { echo "slurm-local.sh: not started in $dir" >&2; return 1; }
  local kind name pid comm ok=0
  while read -r kind name pid comm; do
    case $kind in
      pid) if pid_is "$pid" "$comm"; then echo "$name pid $pid running"; else echo "$name pid $pid GONE"; ok=1; fi ;;
      netns) echo "netns $name" ;;
      link) echo "link $name" ;;
    esac
  done <"$state"
  SLURM_CONF=$conf timeout 10 sinfo -N -o '%N %T %c %O' 2>&1 || ok=1
  return $ok
}

free_port_pair() {
  local used p
  used=$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
  for p in $(shuf -i 17000-17998 -n 200); do
    if ! grep -qx "$p" <<<"$used" && ! grep -qx "$((p + 1))" <<<"$used"; then
      echo "$p"; return 0
    fi
  done
  return 1
}

free_subnet() {
  local x routes
  routes=$(ip -4 route show 2>/dev/null; ip -4 addr show 2>/dev/null)
  for x in $(shuf -i 1-250 -n 100); do
    grep -q "10\.77\.$x\." <<<"$routes" || { echo "$x"; return 0; }
  done
  return 1
}

# what start and env print (see the header)
exports() {
  echo "export SLURM_CONF=$conf"
  echo "export OMPI_MCA_btl_vader_backing_directory=$dir/shm"
}

do_start() {
  [ "$(id -u)" = 0 ] || cannot "needs root (munged, slurmd as root, namespaces)"
  local b
  for b in munged mungekey slurmctld slurmd slurmstepd sbatch squeue scontrol sinfo; do
    command -v "$b" >/dev/null || PATH=$PATH:/usr/sbin command -v "$b" >/dev/null ||
      cannot "$b not installed (scripts/setup.sh installs slurmctld slurmd slurm-client munge)"
  done
  export PATH=$PATH:/usr/sbin
  if [ -f "$state" ]; then
    if do_status >/dev/null 2>&1; then die "already running in $dir (stop it first)"; fi
    do_stop
  fi
  : >"$state"
  rm -rf "${dir:?}/etc" "$dir/munge" "$dir/state.d" "$dir/spool" "$dir/tmp" "$dir/shm" "$dir/log" "$dir/run"
  mkdir -p "$dir/etc" "$dir/munge" "$dir/state.d" "$dir/spool" "$dir/tmp" "$dir/shm" "$dir/log" "$dir/run"
  chmod 755 "$dir" "$dir/munge"

  # ---- munge: own key, socket, pid, log (never the system's) ----
  local msock=$dir/munge/munge.socket
  mungekey -c -k "$dir/munge/munge.key" -b 1024 >/dev/null 2>&1 || die "mungekey failed"
  chmod 600 "$dir/munge/munge.key"
  munged --socket="$msock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" --force >/dev/null 2>&1 ||
    { show_logs; die "munged failed to start"; }
  local pid
  pid=$(wait_pidfile "$dir/munge/munged.pid" munged) || { show_logs; die "munged did not start"; }
  record pid munged "$pid" munged
  munge -S "$msock" -n 2>/dev/null | unmunge -S "$msock" >/dev/null 2>&1 || { show_logs; die "munge self-test failed"; }

  local port
  port=$(free_port_pair) || die "no free port pair in 17000-17999"

  # ---- network for two nodes ----
  local ctl_host="localhost" node_lines part_nodes tag x
  tag=$(printf '%s' "$dir" | md5sum | cut -c1-6)
  if [ "$nodes" = 2 ]; then
    command -v ip >/dev/null && command -v nsenter >/dev/null && command -v unshare >/dev/null ||
      { do_stop; cannot "iproute2/util-linux (ip, nsenter, unshare) missing"; }
    x=$(free_subnet) || { do_stop; die "no free 10.77.X.0/24"; }
    local br="ndbr$tag" net="10.77.$x"
    if ! ip link add "$br" type bridge 2>/dev/null; then
      do_stop; cannot "cannot create a bridge (no CAP_NET_ADMIN?)"
    fi
    record link "$br"
    ip addr add "$net.1/24" dev "$br" && ip link set "$br" up || { do_stop; die "bridge setup failed"; }
    local n i
    for i in 1 2; do
      n="ndd$tag-n$i"
      ip netns add "$n" 2>/dev/null || { do_stop; cannot "cannot create network namespaces"; }
      record netns "$n"
      ip link add "ndv$tag$i" type veth peer name "ndp$tag$i" || { do_stop; die "veth failed"; }
      record link "ndv$tag$i"
      ip link set "ndv$tag$i" master "$br" && ip link set "ndv$tag$i" up &&
        ip link set "ndp$tag$i" netns "$n" &&
        nsenter --net="/run/netns/$n" ip link set lo up &&
        nsenter --net="/run/netns/$n" ip addr add "$net.1$i/24" dev "ndp$tag$i" &&
        nsenter --net="/run/netns/$n" ip link set "ndp$tag$i" up &&
        nsenter --net="/run/netns/$n" ip route add default via "$net.1" ||
        { do_stop; die "namespace $n setup failed"; }
    done
    ctl_host="localhost($net.1)"
    node_lines="NodeName=n1 NodeAddr=$net.11 CPUs=$cpus RealMemory=1000 State=UNKNOWN
NodeName=n2 NodeAddr=$net.12 CPUs=$cpus RealMemory=1000 State=UNKNOWN"
    part_nodes="n1,n2"
  else
    node_lines="NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN"
    part_nodes="localhost"
  fi

  cat >"$conf" <<EOF
# written by scripts/slurm-local.sh start --nodes $nodes
ClusterName=ndd$tag
SlurmctldHost=$ctl_host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$msock
CryptoType=crypto/munge
StateSaveLocation=$dir/state.d
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp/%n
FirstJobId=$(((port - 17000) * 1000 + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=pmix
DependencyParameters=kill_invalid_depend
ReturnToService=2
SlurmdParameters=config_overrides
MaxArraySize=$max_array
MaxJobCount=100000
MinJobAge=600
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
$node_lines
PartitionName=debug Nodes=$part_nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  local names
  if [ "$nodes" = 2 ]; then names="n1 n2"; else names="localhost"; fi
  for n in $names; do mkdir -p "$dir/spool/$n" "$dir/tmp/$n"; done

  export SLURM_CONF=$conf
  slurmctld >>"$dir/log/slurmctld.out" 2>&1 || { show_logs; do_stop; die "slurmctld failed to start"; }
  pid=$(wait_pidfile "$dir/run/slurmctld.pid" slurmctld) || { show_logs; do_stop; die "slurmctld did not start"; }
  record pid slurmctld "$pid" slurmctld

  if [ "$nodes" = 2 ]; then
    for i in 1 2; do
      nsenter --net="/run/netns/ndd$tag-n$i" unshare --uts sh -c "hostname n$i && exec slurmd -N n$i" \
        >>"$dir/log/slurmd-n$i.out" 2>&1 || { show_logs; do_stop; die "slurmd n$i failed to start"; }
      pid=$(wait_pidfile "$dir/run/slurmd-n$i.pid" slurmd) || { show_logs; do_stop; die "slurmd n$i did not start"; }
      record pid "slurmd-n$i" "$pid" slurmd
    done
  else
    slurmd -N localhost >>"$dir/log/slurmd-localhost.out" 2>&1 || { show_logs; do_stop; die "slurmd failed to start"; }
    pid=$(wait_pidfile "$dir/run/slurmd-localhost.pid" slurmd) || { show_logs; do_stop; die "slurmd did not start"; }
    record pid slurmd-localhost "$pid" slurmd
  fi

  # idle within a few seconds
  local idle=0 states
  for i in $(seq 1 150); do
    states=$(timeout 10 sinfo -h -N -o '%T' 2>/dev/null | sort -u | tr '\n' ' ')
    if [ "$states" = "idle " ]; then idle=1; break; fi
    sleep 0.2
  done
  if [ $idle = 0 ]; then
    echo "slurm-local.sh: nodes not idle: $states" >&2
    show_logs; do_stop; die "cluster did not come up"
  fi
  echo "slurm-local.sh: $nodes node(s) idle; config $conf (ports $port/$((port + 1)))" >&2
  exports
}

case $cmd in
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
  env) [ -f "$conf" ] || die "no configuration in $dir"; exports ;;
  -h|--help|help) usage ;;
  *) echo "slurm-local.sh: unknown command '$cmd'" >&2; usage ;;
esac
