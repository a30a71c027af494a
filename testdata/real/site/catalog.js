// The product catalogue the SPA pages render on the client.
window.CATALOG = [
  {id: 'tent-2p', name: 'Ridge 2P Tent', price: '249.00', category: 'tents'},
  {id: 'tent-4p', name: 'Basecamp 4P Tent', price: '399.00', category: 'tents'},
  {id: 'pack-45', name: 'Summit 45L Pack', price: '179.00', category: 'packs'},
  {id: 'pack-22', name: 'Daytrip 22L Pack', price: '89.00', category: 'packs'},
  {id: 'boot-mid', name: 'Scree Mid Boot', price: '159.00', category: 'boots'},
  {id: 'boot-low', name: 'Scree Low Boot', price: '139.00', category: 'boots'},
  {id: 'bag-0c', name: 'Alpine 0C Sleeping Bag', price: '219.00', category: 'sleep'},
  {id: 'pad-air', name: 'Cloud Air Pad', price: '99.00', category: 'sleep'},
  {id: 'stove-ti', name: 'Titan Stove', price: '64.00', category: 'cooking'},
];
