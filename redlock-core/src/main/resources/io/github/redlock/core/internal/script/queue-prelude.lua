-- The opening of the read-write lock's acquisition scripts, prepended to each when it is loaded: the
-- server's time (ms in `now`, µs as a string in `arrival`: a Lua number would print only 14 digits), the
-- removal of queue entries whose owners stopped retrying, and the queue's operations. KEYS[3] queued
-- writers, KEYS[4] queued readers, KEYS[5] expiry of every queue entry ('w:' or 'r:' .. token -> server ms).
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local arrival = time[1] .. string.format('%06d', tonumber(time[2]))
local expired = redis.call('zrangebyscore', KEYS[5], '-inf', now, 'limit', 0, 100)
for _, entry in ipairs(expired) do
    redis.call('zrem', KEYS[5], entry)
    redis.call('zrem', (string.sub(entry, 1, 1) == 'w') and KEYS[3] or KEYS[4], string.sub(entry, 3))
end

-- Whether `queue` holds an entry that arrived before `ticket` (any entry, when this caller has no ticket).
local function queued_before(queue, ticket)
    if ticket then
        return redis.call('zcount', queue, '-inf', '(' .. ticket) > 0
    end
    return redis.call('zcard', queue) > 0
end

-- Queues the token in `queue` ('w' or 'r' entries) at its first refusal, and renews its entry's expiry.
local function enqueue(queue, role, token, queuedMillis)
    redis.call('zadd', queue, 'NX', arrival, token)
    redis.call('zadd', KEYS[5], now + queuedMillis, role .. ':' .. token)
    for _, key in ipairs({ queue, KEYS[5] }) do
        if redis.call('pttl', key) < queuedMillis then
            redis.call('pexpire', key, queuedMillis)
        end
    end
end

-- Removes the token's entry from `queue`, once it has the lock.
local function dequeue(queue, role, token)
    redis.call('zrem', queue, token)
    redis.call('zrem', KEYS[5], role .. ':' .. token)
end
