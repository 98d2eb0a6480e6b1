-- Records that a client saw a node's server process: KEYS[1] the node's record on another node (hash:
-- run_id -> when it was last seen, this server's ms). ARGV[1] the run_id seen, ARGV[2] how long a record
-- matters, ms. Drops entries older than that, so the hash stays small; the hash expires when nobody refreshes it.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local keep = tonumber(ARGV[2])
local entries = redis.call('hgetall', KEYS[1])
for i = 1, #entries, 2 do
    if entries[i] ~= ARGV[1] and tonumber(entries[i + 1]) < now - keep then
        redis.call('hdel', KEYS[1], entries[i])
    end
end
redis.call('hset', KEYS[1], ARGV[1], now)
redis.call('pexpire', KEYS[1], keep)
return 1
