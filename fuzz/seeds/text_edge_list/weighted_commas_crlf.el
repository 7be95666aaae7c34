# comment
0,1,2.5
1,2,1
2,3,0.5
% end
