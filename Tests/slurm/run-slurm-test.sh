#!/usr/bin/env bash
# Integration test: samples/slurm/videowm-batch.sbatch as a 4-task array job on a real
# single-node Slurm (munged, slurmctld and slurmd from Debian's packages) that this script
# configures on loopback, starts as root, and stops again.
#
#   Tests/slurm/run-slurm-test.sh [VIDEOWM_BINARY] [WORK_DIR]
#
# Nothing outside WORK_DIR is configured: the daemons get their own config, munge key,
# sockets, state folders and free TCP ports, so the machine's own Slurm or munge (if any)
# is neither used nor disturbed. Needs root (to install packages and to run slurmd, which
# starts jobs as their user). Prints "slurm test: passed" and exits 0 on success.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
videowm=$(realpath "${1:-$root/.build/debug/videowm}")
work=${2:-$(mktemp -d /tmp/videowm-slurm.XXXXXX)}
wait_seconds=${VIDEOWM_SLURM_WAIT:-180}
rows=6
tasks=4

say() { echo "slurm test: $*"; }
fail() {
    echo "slurm test: FAILED: $*" >&2
    for log in "$work"/log/*; do
        [[ -f "$log" ]] || continue
        echo "----- $log" >&2
        tail -n 40 "$log" >&2
    done
    exit 1
}

[[ -x "$videowm" ]] || fail "no videowm binary at $videowm (build first, or pass its path)"
[[ "$(id -u)" -eq 0 ]] || fail "must run as root (it installs Slurm and starts slurmd, which runs jobs as their user)"

# --- packages (idempotent: apt only when something is missing) ---------------------------
packages=(slurm-wlm munge ffmpeg python3)
missing=()
for package in "${packages[@]}"; do
    [[ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)" == installed ]] || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
fi

# --- a private single-node cluster --------------------------------------------------------
mkdir -p "$work"/{etc,state,spool,log,run,munge,job}
chmod 755 "$work" "$work/run"
chmod 700 "$work/munge"
pids=()
stop_daemons() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
}
trap stop_daemons EXIT
trap 'exit 130' INT TERM

# munged insists that only its own user can read the key.
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged -F --key-file="$work/munge/munge.key" --socket="$work/run/munge.socket" \
    --pid-file="$work/run/munged.pid" --seed-file="$work/munge/munged.seed" \
    --log-file="$work/log/munged.log" >>"$work/log/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -S "$work/run/munge.socket" ]] && break; sleep 0.1; done
munge -S "$work/run/munge.socket" -n | unmunge -S "$work/run/munge.socket" >/dev/null || fail "munged does not answer"

read -r controller_port node_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')
# What slurmd finds on this machine (CPUs, sockets, memory), under the node name we use.
node_line=$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]*/NodeName=localhost/')
export SLURM_CONF="$work/etc/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=videowm-test
SlurmctldHost=localhost
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/run/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
KillWait=5
Waittime=0
$node_line NodeAddr=127.0.0.1 NodeHostname=localhost State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -f "$SLURM_CONF" >>"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
scontrol ping | grep -q UP || fail "slurmctld did not come up"
slurmd -D -N localhost -f "$SLURM_CONF" >>"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 150); do [[ "$(sinfo -h -n localhost -o %t 2>/dev/null)" == idle ]] && break; sleep 0.2; done
[[ "$(sinfo -h -n localhost -o %t)" == idle ]] || fail "the node is not idle: $(sinfo -h -n localhost -o '%t %E')"
say "cluster up (slurmctld :$controller_port, slurmd :$node_port)"

# --- the batch --------------------------------------------------------------------------------
cd "$work/job"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=192x108:rate=30:duration=1 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=1 \
    -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -b:a 64k lecture.mp4
cat >config.json <<'EOF'
{ "watermarks": [
    { "text": "{email}", "size": 0.08, "opacity": 0.8, "y": 50,
      "animation": { "type": "pingPong", "duration": 1000 }, "unless": { "plan": ["premium"] } }
] }
EOF
{
    echo "email,name,id,plan"
    for id in $(seq "$rows"); do
        plan=free; ((id == 2)) && plan=premium
        echo "s$id@example.com,\"Student, No. $id\",$id,$plan"
    done
} >students.csv

# The sample as a platform would submit it; only the resources are shrunk to this node.
job=$(VIDEOWM="$videowm" sbatch --parsable --array="0-$((tasks - 1))" --cpus-per-task=1 --mem=256M \
    --output="$work/log/task-%A_%a.log" \
    "$root/samples/slurm/videowm-batch.sbatch" lecture.mp4 config.json students.csv 'out/{id}.mp4' --preset ultrafast)
job=${job%%;*}
say "submitted array job $job ($tasks tasks, $rows rows)"

deadline=$((SECONDS + wait_seconds))
while [[ -n "$(squeue -h -j "$job" 2>/dev/null)" ]]; do
    ((SECONDS < deadline)) || fail "job $job still queued or running after ${wait_seconds}s: $(squeue -j "$job")"
    sleep 1
done

# --- checks -------------------------------------------------------------------------------------
states=$(scontrol -o show job "$job" | grep -o 'JobState=[A-Z_]* .*ExitCode=[0-9:]*' | sed -E 's/JobState=([A-Z_]*).*ExitCode=([0-9:]*)/\1 \2/' | sort | uniq -c)
completed=$(scontrol -o show job "$job" | grep -c 'JobState=COMPLETED.*ExitCode=0:0' || true)
((completed == tasks)) || fail "expected $tasks tasks COMPLETED with exit 0, got: $states"

for id in $(seq "$rows"); do
    frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "out/$id.mp4" 2>/dev/null || true)
    [[ "$frames" == 30 ]] || fail "out/$id.mp4: expected 30 frames, ffprobe counted '${frames:-nothing}'"
done
[[ -z "$(find out -name '*videowm-partial*')" ]] || fail "partial files left: $(find out -name '*videowm-partial*')"
python3 - "$rows" "$tasks" videowm-reports/*.jsonl <<'EOF' || fail "the reports do not show every row done exactly once (above)"
import collections, json, sys
rows, tasks, reports = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
done = collections.Counter()
for report in reports:
    for line in open(report, encoding="utf-8"):
        entry = json.loads(line)
        if entry["status"] == "done":
            done[entry["row"]] += 1
        elif entry["status"] == "failed":
            sys.exit(f"{report}: row {entry['row']} failed: {entry['error']}")
if len(reports) != tasks or done != collections.Counter(range(1, rows + 1)):
    sys.exit(f"{len(reports)} reports (want {tasks}); rows done: {dict(sorted(done.items()))}")
EOF
say "$tasks array tasks wrote all $rows outputs, each once"
say "passed"
