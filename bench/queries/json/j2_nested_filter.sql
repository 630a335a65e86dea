-- -> then ->> into a nested object, as a filter: German users' quantities
select count(*) as n, sum((payload::json -> 'props' ->> 'qty')::int) as qty
from events
where payload::json -> 'user' ->> 'country' = 'DE';
