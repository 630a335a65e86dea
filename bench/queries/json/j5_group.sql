-- group by an extracted nested field, filtered on another
select payload::json -> 'user' ->> 'country' as country, count(*) as n,
       sum((payload::json -> 'props' ->> 'qty')::int) as qty
from events
where payload::json ->> 'type' in ('click', 'purchase')
group by 1
order by 1 nulls last;
