-- Hands an exclusive lock from a holder to the next holder in one step, on one node. KEYS[1] the lock's key.
-- ARGV[1] the releasing holder's token, ARGV[2] the next holder's token, ARGV[3] the next holder's ttl ms.
-- While the key still holds ARGV[1], sets it to ARGV[2] with that ttl: the key is never free in between, so no
-- other client can take it, and no release message is sent (the lock was not freed). Returns 1 when handed over,
-- 0 when the key is gone or held by someone else (the releasing holder no longer held it on this node).
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
    return 1
end
return 0
