-- Reads a node's record on another node: KEYS[1] the hash (run_id -> when last seen, this server's ms).
-- Returns a flat list of run_id, age in ms, by this server's clock.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local entries = redis.call('hgetall', KEYS[1])
local result = {}
for i = 1, #entries, 2 do
    result[#result + 1] = entries[i]
    result[#result + 1] = tostring(now - tonumber(entries[i + 1]))
end
return result
