-- Windowed: rank of each line by revenue within its supplier; the top 3 per supplier
select count(*), sum(lo_revenue), max(r)
from (select lo_revenue, rank() over (partition by lo_suppkey order by lo_revenue desc) as r
      from lineorder) t
where r <= 3;
