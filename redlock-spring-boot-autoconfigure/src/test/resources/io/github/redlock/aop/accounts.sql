create table account (id varchar(20) primary key, balance int not null);
insert into account (id, balance) values ('a', 0);
