-- Lease repair, one node that restarted empty since the lease was granted and voted again after its quarantine: writes
-- the lease's token ARGV[1] on every one of KEYS with a time to live of ARGV[2] ms, only where none of them exists (it
-- never replaces another holder's key, nor a key of its own that is still there). Returns ARGV[2] when it wrote them,
-- or 0, changing nothing, when any of the keys exists.
for i = 1, #KEYS do
    if redis.call('exists', KEYS[i]) == 1 then
        return 0
    end
end
for i = 1, #KEYS do
    redis.call('set', KEYS[i], ARGV[1], 'px', ARGV[2])
end
return tonumber(ARGV[2])
