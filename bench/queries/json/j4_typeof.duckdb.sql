select case json_type(payload, '$.value')
         when 'BIGINT' then 'number' when 'UBIGINT' then 'number' when 'DOUBLE' then 'number'
         when 'VARCHAR' then 'string' when 'BOOLEAN' then 'boolean' when 'NULL' then 'null'
         when 'OBJECT' then 'object' when 'ARRAY' then 'array' end as t,
       count(*) as n
from events
group by 1
order by 1 nulls last;
