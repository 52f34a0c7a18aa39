# With LAB_GC_LOG=1 (stack.env's ENV), one thread per serving process
# prints a line to stderr after the runtime's collections, so the lab can
# tell a collector's stop from another stall. Ruby keeps no log of its GC,
# only counters: GC.count, GC.stat's minor and major counts, and (since
# 3.1) GC.total_time, the nanoseconds spent in the collector, which Ruby
# measures on the process's CPU clock (CLOCK_PROCESS_CPUTIME_ID). Every
# POLL the thread reads them; when collections ran since its last look it
# prints
#
#   lab-gc pid=<pid> count=<GC.count> minor=<n> major=<n> ms=<GC time since the last line>
#
# and the engine's stamp of the line (docker logs --timestamps) times it:
# the lab reads a line as a stop of that length ending at the stamp
# (formats/pauses). The thread needs the GVL to look, so a line can come
# later than its collections by a poll and by another thread's hold on
# the GVL. Off (no thread) without LAB_GC_LOG=1.
module GCLog
  POLL = 0.01 # seconds

  def self.start
    return unless ENV["LAB_GC_LOG"] == "1"

    Thread.new do
      Thread.current.name = "lab-gc-log"
      last_count, last_ns = GC.count, GC.total_time
      loop do
        sleep POLL
        count = GC.count
        next if count == last_count

        ns = GC.total_time
        $stderr.write(format("lab-gc pid=%d count=%d minor=%d major=%d ms=%.3f\n",
                             Process.pid, count, GC.stat(:minor_gc_count), GC.stat(:major_gc_count),
                             (ns - last_ns) / 1e6))
        last_count, last_ns = count, ns
      end
    end
  end
end

# The serving process in Puma's single mode; in cluster mode this is the
# master (which serves nothing), and config/puma.rb starts one in each
# worker after the fork, which does not carry threads over.
GCLog.start
