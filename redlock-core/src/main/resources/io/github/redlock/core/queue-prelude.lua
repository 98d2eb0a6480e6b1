-- The opening of the read-write lock's acquisition scripts, prepended to each when it is loaded: the
-- server's time (ms in `now`, µs as a string in `arrival`: a Lua number would print only 14 digits), and
-- the removal of queue entries whose owners stopped retrying. KEYS[3] queued writers, KEYS[4] queued
-- readers, KEYS[5] expiry of every queue entry ('w:' or 'r:' .. token -> server ms).
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local arrival = time[1] .. string.format('%06d', tonumber(time[2]))
local expired = redis.call('zrangebyscore', KEYS[5], '-inf', now, 'limit', 0, 100)
for _, entry in ipairs(expired) do
    redis.call('zrem', KEYS[5], entry)
    redis.call('zrem', (string.sub(entry, 1, 1) == 'w') and KEYS[3] or KEYS[4], string.sub(entry, 3))
end
